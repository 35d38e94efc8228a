import CZlib

/// zlib inflation (RFC 1950 around RFC 1951) that stops as soon as the output would pass a bound, so a small
/// compressed input that expands to gigabytes costs at most `maximumBytes` of memory and the work to produce them.
package enum BoundedInflate {
    /// The inflated bytes of `compressed`, a complete zlib stream.
    /// - Throws: ``JOSEError`` `.limitExceeded` (member `what`) when the output would pass `maximumBytes`;
    ///   `.invalidStatusList` when the input is not one complete zlib stream (bad header or checksum, truncated,
    ///   or followed by other bytes).
    package static func inflate(_ compressed: [UInt8], maximumBytes: Int, what: String) throws(JOSEError) -> [UInt8] {
        var stream = z_stream()
        guard inflateInit_(&stream, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size)) == Z_OK else {
            throw JOSEError(.cryptoFailure, "zlib could not start inflating \(what)")
        }
        defer { inflateEnd(&stream) }
        var output: [UInt8] = []
        let chunkSize = 16 * 1024
        var chunk = [UInt8](repeating: 0, count: chunkSize)
        var status: Int32 = Z_OK
        var failure: JOSEError?
        compressed.withUnsafeBufferPointer { input in
            stream.next_in = UnsafeMutablePointer(mutating: input.baseAddress)
            stream.avail_in = UInt32(clamping: input.count)
            chunk.withUnsafeMutableBufferPointer { buffer in
                repeat {
                    stream.next_out = buffer.baseAddress
                    stream.avail_out = UInt32(buffer.count)
                    status = CZlib.inflate(&stream, Z_NO_FLUSH)
                    let produced = buffer.count - Int(stream.avail_out)
                    if output.count + produced > maximumBytes {
                        failure = JOSEError(.limitExceeded, "\(what) inflates to more than \(maximumBytes) bytes", member: what)
                        return
                    }
                    output.append(contentsOf: buffer[0..<produced])
                    if status != Z_OK && status != Z_STREAM_END {
                        failure = JOSEError(.invalidStatusList, "\(what) is not zlib data (\(Self.describe(status)))", member: what)
                        return
                    }
                    // Z_OK with no progress and no input left: a truncated stream.
                    if status == Z_OK && produced == 0 && stream.avail_in == 0 {
                        failure = JOSEError(.invalidStatusList, "\(what) is a truncated zlib stream", member: what)
                        return
                    }
                } while status != Z_STREAM_END
            }
            if failure == nil, stream.avail_in != 0 {
                failure = JOSEError(.invalidStatusList, "\(what) has bytes after its zlib stream", member: what)
            }
        }
        if let failure { throw failure }
        return output
    }

    private static func describe(_ status: Int32) -> String {
        switch status {
        case Z_DATA_ERROR: return "corrupt data or checksum"
        case Z_NEED_DICT: return "a preset dictionary is required"
        case Z_MEM_ERROR: return "out of memory"
        case Z_BUF_ERROR: return "no progress possible"
        default: return "zlib status \(status)"
        }
    }
}
