import JOSE

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The file handling the file stores share (``FileTokenStore``, ``FilePendingLoginStore``): one rule for
/// reading and writing a private file. Reads never follow a link or block on a FIFO and accept only a
/// regular file of this user with mode 0600 or stricter; writes go to a new, exclusively created 0600
/// file that is synced before the caller links or renames it into place. Each store turns a
/// ``Failure`` into its own typed error.
package enum PrivateFile {
    /// Why a private file could not be used.
    package enum Failure: Error, Equatable {
        /// No file at the path.
        case missing
        /// The path is a symbolic link.
        case symbolicLink
        /// Not a regular file (a folder, FIFO, device, socket).
        case notRegular
        /// A regular file of another user.
        case otherOwner
        /// Readable or writable by other users.
        case tooOpen
        /// Larger than the caller's limit.
        case tooLarge
        /// A system call failed (the text is `strerror`, never file contents).
        case system(String)
    }

    /// The contents of the private file at `path`, at most `limit` bytes.
    package static func contents(of path: String, limit: Int) throws(Failure) -> [UInt8] {
        let fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else {
            if errno == ENOENT { throw .missing }
            if errno == ELOOP { throw .symbolicLink }
            throw .system(lastError())
        }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw .system(lastError()) }
        guard info.st_mode & S_IFMT == S_IFREG else { throw .notRegular }
        guard info.st_uid == geteuid() else { throw .otherOwner }
        guard info.st_mode & 0o077 == 0 else { throw .tooOpen }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 8192)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR { continue }
            guard count >= 0 else { throw .system(lastError()) }
            if count == 0 { break }
            bytes += chunk[0..<count]
            guard bytes.count <= limit else { throw .tooLarge }
        }
        return bytes
    }

    /// Writes `contents` to a new 0600 file named `prefix` + a random suffix (created exclusively: never an
    /// existing file or link), synced; returns its path. The caller renames or links it into place.
    package static func writeTemporary(_ contents: [UInt8], prefix: String) throws(Failure) -> String {
        var fd: Int32 = -1
        var temporary = ""
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<8 {
            temporary = prefix + String(generator.next() as UInt64, radix: 16)
            fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
            if fd >= 0 || errno != EEXIST { break }
        }
        guard fd >= 0 else { throw .system(errno == EEXIST ? "every random name was taken" : lastError()) }
        var ok = fchmod(fd, 0o600) == 0
        var offset = 0
        while ok, offset < contents.count {
            let written = contents[offset...].withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
            if written < 0, errno == EINTR { continue }
            ok = written > 0
            offset += max(written, 0)
        }
        ok = ok && fsync(fd) == 0
        let failure = ok ? "" : lastError()
        close(fd)
        guard ok else {
            unlink(temporary)
            throw .system(failure)
        }
        return temporary
    }

    /// Makes a rename or link in `folder` durable (`fsync` of the folder).
    package static func syncFolder(_ folder: String) throws(Failure) {
        let fd = open(folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { throw .system(lastError()) }
        defer { close(fd) }
        guard fsync(fd) == 0 else { throw .system(lastError()) }
    }

    /// The folder holding `path` (`.` for a bare name).
    package static func folder(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }

    /// `strerror(errno)`.
    package static func lastError() -> String { String(cString: strerror(errno)) }
}
