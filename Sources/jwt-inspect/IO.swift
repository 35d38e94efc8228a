#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Small POSIX I/O helpers: the tool avoids Foundation's file APIs (start-up time).
enum IO {
    /// Reads standard input up to `limit` bytes. Returns the bytes and whether
    /// there was more; the rest is drained (and dropped) so a writer never blocks.
    static func readStandardInput(limit: Int) -> (bytes: [UInt8], truncated: Bool) {
        var bytes: [UInt8] = []
        var truncated = false
        _ = readAll(0) { chunk in
            // Past the limit, keep draining without storing: cheap, and the writer sees EOF normally.
            if truncated || bytes.count + chunk.count > limit { truncated = true } else { bytes.append(contentsOf: chunk) }
            return true
        }
        return (bytes, truncated)
    }

    /// Reads a whole file up to `limit` bytes.
    static func readFile(_ path: String, limit: Int = 4 << 20) throws(SetupError) -> [UInt8] {
        let fd = open(path, O_RDONLY)
        guard fd >= 0 else { throw SetupError("cannot open \(path): \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        var bytes: [UInt8] = []
        let status = readAll(fd) { chunk in
            bytes.append(contentsOf: chunk)
            return bytes.count <= limit
        }
        if status < 0 { throw SetupError("cannot read \(path): \(String(cString: strerror(errno)))") }
        if bytes.count > limit { throw SetupError("\(path) is larger than \(limit) bytes; is it really a key?") }
        return bytes
    }

    /// Feeds `fd` to `consume` in chunks until end of file, an error (-1) or `consume` returns `false`.
    /// The chunk buffer is on the stack and never zero-filled: a 64 KiB zeroed array cost 16 page
    /// faults per run, a tenth of the start-up budget.
    private static func readAll(_ fd: Int32, _ consume: (UnsafeRawBufferPointer) -> Bool) -> Int {
        withUnsafeTemporaryAllocation(byteCount: 16384, alignment: 16) { buffer in
            while true {
                let count = read(fd, buffer.baseAddress, buffer.count)
                if count < 0, errno == EINTR { continue }
                if count <= 0 { return count }
                guard consume(UnsafeRawBufferPointer(rebasing: buffer[0..<count])) else { return 0 }
            }
        }
    }

    static func write(_ text: String, to fd: Int32) {
        var text = text
        text.withUTF8 { buffer in
            guard let base = buffer.baseAddress else { return }
            var offset = 0
            while offset < buffer.count {
                let written = fileWrite(fd, base + offset, buffer.count - offset)
                if written < 0, errno == EINTR { continue }
                if written <= 0 { return }
                offset += written
            }
        }
    }

    /// Creates `path` (never replacing an existing file or following a symbolic link) with `mode`, and writes `contents`.
    static func createFile(_ path: String, contents: String, mode: mode_t) throws(SetupError) {
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode)
        guard fd >= 0 else { throw SetupError("cannot create \(path): \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        var offset = 0
        let bytes = Array(contents.utf8)
        while offset < bytes.count {
            let written = bytes.withUnsafeBufferPointer { buffer -> Int in
                guard let base = buffer.baseAddress else { return 0 }
                return fileWrite(fd, base + offset, buffer.count - offset)
            }
            if written < 0, errno == EINTR { continue }
            guard written > 0 else { throw SetupError("cannot write \(path): \(String(cString: strerror(errno)))") }
            offset += written
        }
    }

    static func isTerminal(_ fd: Int32) -> Bool { isatty(fd) == 1 }

    static func environment(_ name: String) -> String? {
        guard let value = getenv(name) else { return nil }
        return String(cString: value)
    }

    static func currentTime() -> Double {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
    }
}

/// The C `write`, reachable by name here (inside ``IO`` its own `write` shadows it).
private func fileWrite(_ fd: Int32, _ bytes: UnsafePointer<UInt8>, _ count: Int) -> Int {
    write(fd, bytes, count)
}

/// A setup error (key file, network, discovery): exit status 2.
struct SetupError: Error {
    let message: String
    init(_ message: String) { self.message = message }
}
