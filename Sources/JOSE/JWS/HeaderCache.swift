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
        var recent: Slot?
        var older: Slot?
    }

    private static let entries = PerThread { Entry() }

    /// The header of `segment` under `limits`: this thread's cached one when
    /// the bytes and limits are identical, else `parse()` (whose success is stored,
    /// replacing the entry used least recently).
    @inline(__always)
    static func header(segment: UnsafeBufferPointer<UInt8>, limits: JSONLimits, parse: () throws -> JOSEHeader) throws -> JOSEHeader {
        guard segment.count <= maxSegmentBytes, segment.baseAddress != nil, let entry = entries.current else { return try parse() }
        if let recent = entry.recent, recent.matches(segment, limits) { return recent.header }
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
}
