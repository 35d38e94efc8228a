#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import JOSE
import OIDC

extension OIDCError.Code {
    /// The token file could not be read or written.
    public static let tokenStoreFailure = OIDCError.Code(rawValue: "token_store_failure")
    /// The token file is readable or writable by other users.
    public static let tokenFileTooOpen = OIDCError.Code(rawValue: "token_file_too_open")
}

/// Tokens in a JSON file (the ``TokenResponse`` stored form), written
/// atomically (a temporary file in the same folder, then `rename`) with mode
/// 0600 set before any content is written. A file that group or others can
/// read or write is refused, not read. An empty file means "no tokens".
public struct FileTokenStore: TokenStore {
    /// The file's path.
    public let path: String

    /// A store at `path`.
    public init(path: String) { self.path = path }

    /// Writes the tokens atomically with mode 0600.
    public func save(_ tokens: TokenResponse) async throws {
        try write(Array(tokens.jsonObject.jsonString(sortedKeys: true).utf8) + [0x0A])
    }

    /// Reads the tokens; `nil` when the file is missing or empty.
    public func load() async throws -> TokenResponse? {
        let fd = open(path, O_RDONLY | O_NOFOLLOW)
        if fd < 0 {
            if errno == ENOENT { return nil }
            throw OIDCError(.tokenStoreFailure, "cannot open the token file \(path): \(String(cString: strerror(errno)))")
        }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw OIDCError(.tokenStoreFailure, "cannot inspect the token file \(path)") }
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
    public func clear() async throws { try write([]) }

    private func write(_ bytes: [UInt8]) throws {
        let temporary = path + ".tmp-\(getpid())"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW, 0o600)
        guard fd >= 0 else { throw OIDCError(.tokenStoreFailure, "cannot create \(temporary): \(String(cString: strerror(errno)))") }
        var ok = fchmod(fd, 0o600) == 0
        var offset = 0
        while ok, offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
            if written < 0, errno == EINTR { continue }
            ok = written > 0
            offset += max(written, 0)
        }
        ok = ok && fsync(fd) == 0
        close(fd)
        guard ok, rename(temporary, path) == 0 else {
            unlink(temporary)
            throw OIDCError(.tokenStoreFailure, "cannot write the token file \(path): \(String(cString: strerror(errno)))")
        }
    }
}
