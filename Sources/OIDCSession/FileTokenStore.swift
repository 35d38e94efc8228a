import JOSE
import OIDC
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Tokens in a JSON file (the ``/OIDC/TokenResponse`` stored form).
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
    /// - Throws: ``/OIDCCore/OIDCError`` `.tokenStoreFailure` naming the step that failed.
    public func save(_ tokens: TokenResponse) async throws {
        try replaceContents(with: Array(tokens.jsonObject.jsonString(sortedKeys: true).utf8) + [0x0A])
    }

    /// Reads the tokens; `nil` when the file is missing or empty.
    public func load() async throws -> TokenResponse? {
        let bytes: [UInt8]
        do {
            bytes = try PrivateFile.contents(of: path, limit: (1 << 20) - 1)
        } catch .missing {
            return nil
        } catch {
            throw tokenFileError(error, "cannot read the token file \(path)")
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
            let temporary: String
            do {
                temporary = try PrivateFile.writeTemporary(bytes, prefix: path + ".tmp-")
            } catch let failure as PrivateFile.Failure {
                throw tokenFileError(failure, "cannot write the token file \(path)")
            }
            guard rename(temporary, path) == 0 else {
                let failure = PrivateFile.lastError()
                unlink(temporary)
                throw OIDCError(.tokenStoreFailure, "cannot replace the token file \(path): \(failure)")
            }
            do {
                try PrivateFile.syncFolder(PrivateFile.folder(of: path))
            } catch let failure as PrivateFile.Failure {
                throw tokenFileError(failure, "cannot sync the folder of \(path)")
            }
        }
    }

    /// The store's typed error for a ``PrivateFile/Failure`` (`what` says which step failed).
    private func tokenFileError(_ failure: PrivateFile.Failure, _ what: String) -> OIDCError {
        switch failure {
        case .symbolicLink: return OIDCError(.tokenFileNotRegular, "the token file \(path) is a symbolic link")
        case .notRegular: return OIDCError(.tokenFileNotRegular, "the token file \(path) is not a regular file")
        case .otherOwner: return OIDCError(.tokenFileNotRegular, "the token file \(path) belongs to another user")
        case .tooOpen:
            return OIDCError(.tokenFileTooOpen, "the token file \(path) is accessible to other users; run: chmod 600 \(path)")
        case .tooLarge: return OIDCError(.tokenStoreFailure, "the token file \(path) is too large")
        case .missing: return OIDCError(.tokenStoreFailure, "\(what): no such file")
        case .system(let reason): return OIDCError(.tokenStoreFailure, "\(what): \(reason)")
        }
    }

}
