#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A binary min-heap of `(expiry, element)`: the soonest expiry on top.
///
/// ``MemoryReplayCache`` drops what has expired from the top, so each record costs
/// O(log n) and the cache never scans all its entries.
struct ExpiryQueue<Element>: Sendable where Element: Sendable {
    private var items: [(expiry: Date, element: Element)] = []

    /// The number of queued elements.
    var count: Int { items.count }

    /// Queues `element` to expire at `expiry`.
    mutating func push(_ element: Element, expiry: Date) {
        items.append((expiry, element))
        var child = items.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard items[child].expiry < items[parent].expiry else { break }
            items.swapAt(child, parent)
            child = parent
        }
    }

    /// Removes and returns the element with the soonest expiry when that expiry is at or before `now`.
    mutating func popExpired(asOf now: Date) -> (expiry: Date, element: Element)? {
        guard let top = items.first, top.expiry <= now else { return nil }
        let last = items.removeLast()
        guard !items.isEmpty else { return top }
        items[0] = last
        var parent = 0
        while true {
            let left = 2 * parent + 1, right = left + 1
            var smallest = parent
            if left < items.count, items[left].expiry < items[smallest].expiry { smallest = left }
            if right < items.count, items[right].expiry < items[smallest].expiry { smallest = right }
            guard smallest != parent else { break }
            items.swapAt(parent, smallest)
            parent = smallest
        }
        return top
    }
}
