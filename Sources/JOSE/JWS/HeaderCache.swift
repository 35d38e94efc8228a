#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The last two protected headers parsed on this thread, each keyed by the exact
/// bytes of its Base64URL segment and the JSON limits it was parsed under.
///
/// A server sees the same header (same `alg`, `kid`, `typ`) on every token of
/// an issuer; parsing it again gives the same ``JOSEHeader``. Two entries, because a
/// DPoP request carries two JWTs (the access token and the proof, whose header holds
/// the client's key) that alternate on a thread. Per thread: nothing is shared
/// between threads (no lock, no shared reference count), and the memory is bounded
/// by twice ``maxSegmentBytes``. A hit requires byte-for-byte equality of the segment
/// and equal limits, so the result is the one a fresh parse would give; failures are
/// never cached.
enum HeaderCache {
    /// Segments longer than this are parsed every time (and never stored).
    static let maxSegmentBytes = 512

    /// One cached header and what it was parsed from.
    struct Slot {
        var segment: [UInt8]
        var limits: JSONLimits
        var header: JOSEHeader

        func matches(_ segment: UnsafeBufferPointer<UInt8>, _ limits: JSONLimits) -> Bool {
            guard self.limits == limits, self.segment.count == segment.count, let wanted = segment.baseAddress else { return false }
            return self.segment.withUnsafeBufferPointer { $0.baseAddress.map { memcmp($0, wanted, segment.count) == 0 } ?? false }
        }
    }

    /// A thread's entries: the most recently used first.
    final class Entry {
        var recent: Slot
        var older: Slot?

        init(_ slot: Slot) { recent = slot }
    }

    private static let key: pthread_key_t? = {
        var key = pthread_key_t()
        #if canImport(Darwin)
        let status = pthread_key_create(&key) { Unmanaged<Entry>.fromOpaque($0).release() }
        #else
        let status = pthread_key_create(&key) { pointer in
            if let pointer { Unmanaged<Entry>.fromOpaque(pointer).release() }
        }
        #endif
        return status == 0 ? key : nil
    }()

    /// The header of `segment` under `limits`: this thread's cached one when
    /// the bytes and limits are identical, else `parse()` (whose success is stored,
    /// replacing the entry used least recently).
    @inline(__always)
    static func header(segment: UnsafeBufferPointer<UInt8>, limits: JSONLimits, parse: () throws -> JOSEHeader) throws -> JOSEHeader {
        guard segment.count <= maxSegmentBytes, segment.baseAddress != nil, let key else { return try parse() }
        let stored = pthread_getspecific(key)
        if let stored {
            let entry = Unmanaged<Entry>.fromOpaque(stored).takeUnretainedValue()
            if entry.recent.matches(segment, limits) { return entry.recent.header }
            if let older = entry.older, older.matches(segment, limits) {
                entry.older = entry.recent
                entry.recent = older
                return older.header
            }
            let header = try parse()
            entry.older = entry.recent
            entry.recent = Slot(segment: Array(segment), limits: limits, header: header)
            return header
        }
        let header = try parse()
        let entry = Entry(Slot(segment: Array(segment), limits: limits, header: header))
        if pthread_setspecific(key, Unmanaged.passRetained(entry).toOpaque()) != 0 {
            Unmanaged.passUnretained(entry).release()
        }
        return header
    }
}
