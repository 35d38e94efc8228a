#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import JOSE
import OIDC
import Synchronization

extension OIDCError.Code {
    /// The token file could not be read or written.
    public static let tokenStoreFailure = OIDCError.Code(rawValue: "token_store_failure")
    /// The token file is readable or writable by other users.
    public static let tokenFileTooOpen = OIDCError.Code(rawValue: "token_file_too_open")
    /// The token path is not a regular file owned by the current user (a FIFO, device,
    /// directory, symbolic link or someone else's file).
    public static let tokenFileNotRegular = OIDCError.Code(rawValue: "token_file_not_regular")
}

/// Tokens in a JSON file (the ``OIDC/TokenResponse`` stored form).
///
/// - Writes are atomic and durable: a new temporary file with a random name in the same
///   folder (created with `O_EXCL|O_NOFOLLOW|O_CLOEXEC`, mode 0600 before any content),
///   written and `fsync`ed, then `rename`d over the file, then the folder `fsync`ed.
///   Writes within the process are serialized, so of concurrent saves the last to run wins
///   and none fails because of another. Every failure is thrown (`.tokenStoreFailure`).
/// - Reads refuse anything but a regular file owned by the current user
///   (`.tokenFileNotRegular`; opened with `O_NONBLOCK|O_NOFOLLOW`, so a FIFO or a symbolic
///   link never blocks or redirects), and a file that group or others can read or write
///   (`.tokenFileTooOpen`). An empty file means "no tokens".
public struct FileTokenStore: TokenStore {
    /// The file's path.
    public let path: String

    /// A store at `path`.
    public init(path: String) { self.path = path }

    /// Writes the tokens atomically with mode 0600.
    /// - Throws: ``OIDC/OIDCError`` `.tokenStoreFailure` naming the step that failed.
    public func save(_ tokens: TokenResponse) async throws {
        try replaceContents(with: Array(tokens.jsonObject.jsonString(sortedKeys: true).utf8) + [0x0A])
    }

    /// Reads the tokens; `nil` when the file is missing or empty.
    public func load() async throws -> TokenResponse? {
        let fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
        if fd < 0 {
            if errno == ENOENT { return nil }
            if errno == ELOOP { throw OIDCError(.tokenFileNotRegular, "the token file \(path) is a symbolic link") }
            throw OIDCError(.tokenStoreFailure, "cannot open the token file \(path): \(Self.lastError())")
        }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw OIDCError(.tokenStoreFailure, "cannot inspect the token file \(path)") }
        guard info.st_mode & S_IFMT == S_IFREG else {
            throw OIDCError(.tokenFileNotRegular, "the token file \(path) is not a regular file")
        }
        guard info.st_uid == geteuid() else {
            throw OIDCError(.tokenFileNotRegular, "the token file \(path) belongs to another user")
        }
        guard info.st_mode & 0o077 == 0 else {
            throw OIDCError(.tokenFileTooOpen, "the token file \(path) is accessible to other users; run: chmod 600 \(path)")
        }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 8192)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR { continue }
            guard count >= 0 else { throw OIDCError(.tokenStoreFailure, "cannot read the token file \(path)") }
            if count == 0 { break }
            bytes += chunk[0..<count]
            guard bytes.count < 1 << 20 else { throw OIDCError(.tokenStoreFailure, "the token file \(path) is too large") }
        }
        if bytes.allSatisfy({ $0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09 }) { return nil }
        do {
            let object = try JSONParser.parseObject(bytes, what: "the token file")
            return try TokenResponse(storedJSON: object)
        } catch let error as JOSEError {
            throw OIDCError(.tokenStoreFailure, "the token file \(path) is not valid JSON", joseError: error)
        }
    }

    /// Empties the file (keeping it, with mode 0600), so a later run sees "no tokens".
    public func clear() async throws { try replaceContents(with: []) }

    /// One writer at a time in this process (any path: writes are short).
    private static let writeLock = Mutex<Void>(())

    private func replaceContents(with bytes: [UInt8]) throws {
        try Self.writeLock.withLock { _ in
            let (temporary, fd) = try createTemporary()
            var ok = fchmod(fd, 0o600) == 0
            var offset = 0
            while ok, offset < bytes.count {
                let written = bytes[offset...].withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
                if written < 0, errno == EINTR { continue }
                ok = written > 0
                offset += max(written, 0)
            }
            ok = ok && fsync(fd) == 0
            let failure = ok ? "" : Self.lastError()
            close(fd)
            guard ok else {
                unlink(temporary)
                throw OIDCError(.tokenStoreFailure, "cannot write the token file \(path): \(failure)")
            }
            guard rename(temporary, path) == 0 else {
                let failure = Self.lastError()
                unlink(temporary)
                throw OIDCError(.tokenStoreFailure, "cannot replace the token file \(path): \(failure)")
            }
            try syncFolder()
        }
    }

    /// A new file next to `path` with a random name, created exclusively (never an existing file or link).
    private func createTemporary() throws -> (String, Int32) {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<8 {
            let suffix = String(generator.next() as UInt64, radix: 16)
            let temporary = path + ".tmp-" + suffix
            let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
            if fd >= 0 { return (temporary, fd) }
            if errno != EEXIST {
                throw OIDCError(.tokenStoreFailure, "cannot create a temporary file next to \(path): \(Self.lastError())")
            }
        }
        throw OIDCError(.tokenStoreFailure, "cannot create a temporary file next to \(path): every random name was taken")
    }

    /// Makes the rename durable: `fsync` of the folder holding `path`.
    private func syncFolder() throws {
        let folder: String
        if let slash = path.lastIndex(of: "/") {
            folder = slash == path.startIndex ? "/" : String(path[..<slash])
        } else {
            folder = "."
        }
        let fd = open(folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { throw OIDCError(.tokenStoreFailure, "cannot open the folder of \(path): \(Self.lastError())") }
        defer { close(fd) }
        guard fsync(fd) == 0 else { throw OIDCError(.tokenStoreFailure, "cannot sync the folder of \(path): \(Self.lastError())") }
    }

    private static func lastError() -> String { String(cString: strerror(errno)) }
}
