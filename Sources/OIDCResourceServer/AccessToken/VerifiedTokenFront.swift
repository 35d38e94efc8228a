import JOSE
import Synchronization

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The last few verified tokens one thread served from ``VerifiedTokenStore``s, each a copy in storage of the
/// thread's own (``AccessToken/detached()``).
///
/// A hit on a store's shared entries takes the shard's lock and copies a token whose reference counts every thread
/// serving it writes: with two threads on one popular token, those writes bounce between the cores and the second
/// thread adds little. A hit here writes only memory this thread owns. It is exactly as safe as a hit on the store:
///
/// - a slot names its store by the store's serial (never reused, unlike an address) and the key (token and policy
///   digests), so it is found only for the same token under the same policy in the same store;
/// - a slot holds only while its store's epoch is the one read *before* the store's entry was found: a purge or a new
///   key set moves the epoch after removing entries, so a slot filled from an entry it removed is never served;
/// - the time rule (`until`, `exp`, `nbf` with the caller's leeway) is checked on every hit, as on the store.
///
/// At most ``capacity`` slots per thread, the most recently used first: memory stays bounded by threads × slots.
enum VerifiedTokenFront {
    /// Slots kept per thread.
    static let capacity = 4

    /// One kept token.
    struct Slot {
        let store: UInt64
        let key: VerifiedTokenStore.Key
        let epoch: UInt64
        let entry: VerifiedTokenStore.Entry
    }

    /// A thread's slots, the most recently used first, and the thread's number (which of a store's hit counters it adds to).
    final class Slots {
        var slots: [Slot] = []
        let thread: Int

        init(thread: Int) {
            self.thread = thread
            slots.reserveCapacity(VerifiedTokenFront.capacity)
        }
    }

    private static let threads = Atomic<Int>(0)

    private static let fronts = PerThread { Slots(thread: threads.wrappingAdd(1, ordering: .relaxed).oldValue) }

    /// This thread's slots (made on first use); `nil` only when the system has no thread-specific storage to give.
    static var current: Slots? { fronts.current }
}

extension VerifiedTokenFront.Slots {
    /// The entry kept for `key` of store `store` at `epoch`, now the most recently used; a slot of that store and key
    /// kept at another epoch is dropped.
    func entry(store: UInt64, key: VerifiedTokenStore.Key, epoch: UInt64) -> VerifiedTokenStore.Entry? {
        guard let position = slots.firstIndex(where: { $0.store == store && $0.key == key }) else { return nil }
        guard slots[position].epoch == epoch else {
            slots.remove(at: position)
            return nil
        }
        if position != 0 { slots.insert(slots.remove(at: position), at: 0) }
        return slots[0].entry
    }

    /// Keeps `slot` first, dropping the least recently used beyond ``VerifiedTokenFront/capacity`` and any older slot of
    /// the same store and key.
    func keep(_ slot: VerifiedTokenFront.Slot) {
        slots.removeAll { $0.store == slot.store && $0.key == slot.key }
        if slots.count >= VerifiedTokenFront.capacity { slots.removeLast(slots.count - VerifiedTokenFront.capacity + 1) }
        slots.insert(slot, at: 0)
    }

    /// Drops the slot of `key` in store `store` (its entry no longer holds).
    func drop(store: UInt64, key: VerifiedTokenStore.Key) {
        slots.removeAll { $0.store == store && $0.key == key }
    }
}
