#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The last protected header parsed on this thread, keyed by the exact bytes
/// of its Base64URL segment and the JSON limits it was parsed under.
///
/// A server sees the same header (same `alg`, `kid`, `typ`) on every token of
/// an issuer; parsing it again gives the same ``JOSEHeader``. One entry per
/// thread: nothing is shared between threads (no lock, no shared reference
/// count), and the memory is bounded by ``maxSegmentBytes``. A hit requires
/// byte-for-byte equality of the segment and equal limits, so the result is
/// the one a fresh parse would give; failures are never cached.
enum HeaderCache {
    /// Segments longer than this are parsed every time (and never stored).
    static let maxSegmentBytes = 512

    final class Entry {
        var segment: [UInt8]
        var limits: JSONLimits
        var header: JOSEHeader

        init(segment: [UInt8], limits: JSONLimits, header: JOSEHeader) {
            self.segment = segment
            self.limits = limits
            self.header = header
        }
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
    /// the bytes and limits are identical, else `parse()` (whose success is stored).
    @inline(__always)
    static func header(segment: UnsafeBufferPointer<UInt8>, limits: JSONLimits, parse: () throws -> JOSEHeader) throws -> JOSEHeader {
        guard segment.count <= maxSegmentBytes, let segmentBase = segment.baseAddress, let key else { return try parse() }
        let stored = pthread_getspecific(key)
        if let stored {
            let entry = Unmanaged<Entry>.fromOpaque(stored).takeUnretainedValue()
            if entry.limits == limits, entry.segment.count == segment.count,
               entry.segment.withUnsafeBufferPointer({ $0.baseAddress.map { memcmp($0, segmentBase, segment.count) == 0 } ?? false }) {
                return entry.header
            }
            let header = try parse()
            entry.segment = Array(segment)
            entry.limits = limits
            entry.header = header
            return header
        }
        let header = try parse()
        let entry = Entry(segment: Array(segment), limits: limits, header: header)
        if pthread_setspecific(key, Unmanaged.passRetained(entry).toOpaque()) != 0 {
            Unmanaged.passUnretained(entry).release()
        }
        return header
    }
}
