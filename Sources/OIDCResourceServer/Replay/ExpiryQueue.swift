/// A binary min-heap of `(deadline, element)`: the soonest deadline on top.
///
/// ``MemoryReplayCache`` drops what has expired from the top, so each record costs
/// O(log n) and the cache never scans all its entries. Deadlines are seconds on the cache's
/// monotonic clock.
struct ExpiryQueue<Element>: Sendable where Element: Sendable {
    private var items: [(deadline: Double, element: Element)] = []

    /// The number of queued elements.
    var count: Int { items.count }

    /// Queues `element` to expire at `deadline`.
    mutating func push(_ element: Element, deadline: Double) {
        items.append((deadline, element))
        var child = items.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard items[child].deadline < items[parent].deadline else { break }
            items.swapAt(child, parent)
            child = parent
        }
    }

    /// Removes and returns the element with the soonest deadline when that deadline is at or before `now`.
    mutating func popExpired(asOf now: Double) -> (deadline: Double, element: Element)? {
        guard let top = items.first, top.deadline <= now else { return nil }
        let last = items.removeLast()
        guard !items.isEmpty else { return top }
        items[0] = last
        siftDown(from: 0)
        return top
    }

    /// Keeps only the elements `isLive` accepts, in O(n) (a heap rebuilt bottom-up).
    mutating func retain(where isLive: (Double, Element) -> Bool) {
        items.removeAll { !isLive($0.deadline, $0.element) }
        var index = items.count / 2
        while index > 0 {
            index -= 1
            siftDown(from: index)
        }
    }

    private mutating func siftDown(from start: Int) {
        var parent = start
        while true {
            let left = 2 * parent + 1, right = left + 1
            var smallest = parent
            if left < items.count, items[left].deadline < items[smallest].deadline { smallest = left }
            if right < items.count, items[right].deadline < items[smallest].deadline { smallest = right }
            guard smallest != parent else { break }
            items.swapAt(parent, smallest)
            parent = smallest
        }
    }
}
