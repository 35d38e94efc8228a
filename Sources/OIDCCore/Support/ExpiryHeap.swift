/// A binary min-heap of `(expiry, element)` with the soonest expiry on top: the one helper the
/// toolkit's in-memory stores use to drop what has expired without scanning all their entries.
///
/// `push` and `popExpired(asOf:)` cost O(log n); a store pops from the top until the top has not
/// expired, so a save never examines entries that are still live. A store that also removes
/// entries early (a pending login consumed before it expires) leaves their heap items behind and
/// skips them when they surface; it rebuilds the heap from its live entries with
/// ``init(_:)`` (O(n)) once such stale items outnumber the live ones, which keeps the heap within
/// a constant factor of the store and the cost per operation amortized O(log n).
package struct ExpiryHeap<Deadline: Comparable & Sendable, Element: Sendable>: Sendable {
    private var items: [(expiry: Deadline, element: Element)] = []

    /// An empty heap.
    package init() {}

    /// A heap of `items`, built bottom-up in O(n).
    package init(_ items: [(expiry: Deadline, element: Element)]) {
        self.items = items
        var parent = items.count / 2
        while parent > 0 {
            parent -= 1
            siftDown(from: parent)
        }
    }

    /// The number of queued elements (stale ones included until they are popped).
    package var count: Int { items.count }

    /// The soonest expiry, if any.
    package var soonestExpiry: Deadline? { items.first?.expiry }

    /// Queues `element` to expire at `expiry`.
    package mutating func push(_ element: Element, expiry: Deadline) {
        items.append((expiry, element))
        var child = items.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard items[child].expiry < items[parent].expiry else { break }
            items.swapAt(child, parent)
            child = parent
        }
    }

    /// Removes and returns the element with the soonest expiry when that expiry is at or before `now`;
    /// `nil` (and nothing removed) when nothing has expired.
    package mutating func popExpired(asOf now: Deadline) -> (expiry: Deadline, element: Element)? {
        guard let top = items.first, top.expiry <= now else { return nil }
        let last = items.removeLast()
        guard !items.isEmpty else { return top }
        items[0] = last
        siftDown(from: 0)
        return top
    }

    /// Keeps only the items `isLive` accepts, in O(n) (the heap rebuilt bottom-up): for a store that gave
    /// entries up early and wants their items gone now rather than when they surface.
    package mutating func retain(where isLive: (Deadline, Element) -> Bool) {
        items.removeAll { !isLive($0.expiry, $0.element) }
        var parent = items.count / 2
        while parent > 0 {
            parent -= 1
            siftDown(from: parent)
        }
    }

    private mutating func siftDown(from start: Int) {
        var parent = start
        while true {
            let left = 2 * parent + 1, right = left + 1
            var smallest = parent
            if left < items.count, items[left].expiry < items[smallest].expiry { smallest = left }
            if right < items.count, items[right].expiry < items[smallest].expiry { smallest = right }
            guard smallest != parent else { return }
            items.swapAt(parent, smallest)
            parent = smallest
        }
    }
}
