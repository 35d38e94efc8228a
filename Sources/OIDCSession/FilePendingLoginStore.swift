import JOSE
import OIDC

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A ``PendingLoginStore`` in a private folder: for one machine (a single server that must
/// keep logins in progress across a restart, a CLI that finishes the login in another process).
///
/// - The folder is created with mode 0700 when missing; an existing one must be a real
///   folder of this user that no one else can open (else `token_file_too_open` /
///   `token_file_not_regular`).
/// - One file per login, named by the SHA-256 of its key (never the key itself), mode 0600,
///   written whole to a temporary file, synced, then linked into place: a reader never sees a
///   half-written entry, and of two saves with one key the second gets `pending_login_exists`.
/// - Consumed once: the entry is renamed away (atomic) before it is read, so of any number of
///   concurrent callbacks with the same key, in any processes, exactly one gets it.
/// - An entry past its expiry is refused (`pending_login_expired`) and deleted; every save
///   deletes the expired entries of the folder.
public struct FilePendingLoginStore: PendingLoginStore, CustomStringConvertible {
    /// The folder holding the entries.
    public let folder: String
    /// The current time (expiry is judged by it).
    package let clock: @Sendable () -> Date

    /// A store in `folder` (created on first save if missing).
    public init(folder: String, clock: @escaping @Sendable () -> Date = { Date() }) {
        self.folder = folder
        self.clock = clock
    }

    /// `FilePendingLoginStore(folder: PATH)`.
    public var description: String { "FilePendingLoginStore(folder: \(folder))" }

    /// Saves `bytes` under `key`; this store keeps no count bound and does not use `scope`.
    /// - Throws: `pending_login_exists`; `token_file_too_open` or `token_file_not_regular` for the folder;
    ///   `pending_login_store_failure`.
    public func saveBytes(_ bytes: [UInt8], key: String, expiresIn: Double, scope: String?) async throws {
        try PendingLoginCoding.checkLifetime(expiresIn)
        let name = Self.hex(try PendingLoginCoding.keyHash(key))
        try prepareFolder()
        _ = try? purgeExpired()
        guard let expiry = Self.milliseconds(clock().addingTimeInterval(expiresIn)) else {
            throw OIDCError(.pendingLoginUnreadable, "the expiry time is out of range")
        }
        let contents = Array("\(expiry)\n".utf8) + bytes
        let temporary = try writeTemporary(contents)
        defer { unlink(temporary) }
        guard link(temporary, path(name)) == 0 else {
            if errno == EEXIST { throw OIDCError(.pendingLoginExists, "a pending login with this key already exists") }
            throw failure("cannot store the pending login in \(folder)")
        }
        try syncFolder()
    }

    /// Takes the bytes saved under `key`, at most once (see ``PendingLoginStore/consumeBytes(key:)``).
    /// - Throws: `pending_login_not_found`, `pending_login_expired`; `token_file_too_open` or
    ///   `token_file_not_regular` for an entry another user could read; `pending_login_store_failure`.
    public func consumeBytes(key: String) async throws -> [UInt8] {
        let name = Self.hex(try PendingLoginCoding.keyHash(key))
        let claimed = path(name + ".consumed-" + Self.hex(try SecureRandom.bytes(8)))
        guard rename(path(name), claimed) == 0 else {
            if errno == ENOENT {
                throw OIDCError(.pendingLoginNotFound, "no pending login for this key (unknown, already used, or expired and purged)")
            }
            throw failure("cannot take the pending login from \(folder)")
        }
        defer { unlink(claimed) }
        let contents = try readEntry(claimed)
        guard let (expiry, body) = Self.split(contents) else {
            throw OIDCError(.pendingLoginUnreadable, "a pending-login file in \(folder) is not in this store's format")
        }
        guard let now = Self.milliseconds(clock()), expiry > now else {
            throw OIDCError(.pendingLoginExpired, "the pending login for this key has expired")
        }
        return body
    }

    /// Deletes the expired entries of the folder (and unreadable ones); returns how many.
    @discardableResult
    public func purgeExpired() throws -> Int {
        guard let now = Self.milliseconds(clock()) else { return 0 }
        guard let directory = opendir(folder) else {
            if errno == ENOENT { return 0 }
            throw failure("cannot list \(folder)")
        }
        var names: [String] = []
        while let entry = readdir(directory) {
            let name = withUnsafePointer(to: &entry.pointee.d_name) {
                String(cString: UnsafeRawPointer($0).assumingMemoryBound(to: CChar.self))
            }
            if name.utf8.count == 64, name.utf8.allSatisfy({ ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x61 && $0 <= 0x66) }) {
                names.append(name)
            }
        }
        closedir(directory)
        var purged = 0
        for name in names {
            guard let contents = try? readEntry(path(name)) else { continue }
            if let (expiry, _) = Self.split(contents), expiry > now { continue }
            if unlink(path(name)) == 0 { purged += 1 }
        }
        return purged
    }

    // MARK: - Files

    private func path(_ name: String) -> String { folder.hasSuffix("/") ? folder + name : folder + "/" + name }

    /// Creates the folder (0700) when missing; refuses one that is not a private folder of this user.
    private func prepareFolder() throws {
        if mkdir(folder, 0o700) != 0, errno != EEXIST { throw failure("cannot create the folder \(folder)") }
        var info = stat()
        guard lstat(folder, &info) == 0 else { throw failure("cannot inspect the folder \(folder)") }
        guard info.st_mode & S_IFMT == S_IFDIR else {
            throw OIDCError(.tokenFileNotRegular, "the pending-login folder \(folder) is not a folder")
        }
        guard info.st_uid == geteuid() else {
            throw OIDCError(.tokenFileNotRegular, "the pending-login folder \(folder) belongs to another user")
        }
        guard info.st_mode & 0o077 == 0 else {
            throw OIDCError(.tokenFileTooOpen, "the pending-login folder \(folder) is open to other users; run: chmod 700 \(folder)")
        }
    }

    /// Writes `contents` to a new 0600 file in the folder, synced; returns its path.
    private func writeTemporary(_ contents: [UInt8]) throws -> String {
        do {
            return try PrivateFile.writeTemporary(contents, prefix: path(".tmp-"))
        } catch {
            throw entryError(error, "cannot write a pending login in \(folder)")
        }
    }

    /// The contents of an entry: a regular file of this user, mode 0600 or stricter, at most 1 MiB.
    private func readEntry(_ file: String) throws -> [UInt8] {
        do {
            return try PrivateFile.contents(of: file, limit: 1 << 20)
        } catch {
            throw entryError(error, "cannot read a pending-login entry in \(folder)")
        }
    }

    private func syncFolder() throws {
        do {
            try PrivateFile.syncFolder(folder)
        } catch {
            throw entryError(error, "cannot sync the folder \(folder)")
        }
    }

    /// The store's typed error for a ``PrivateFile/Failure`` (`what` says which step failed).
    private func entryError(_ failure: PrivateFile.Failure, _ what: String) -> OIDCError {
        switch failure {
        case .symbolicLink: return OIDCError(.tokenFileNotRegular, "a pending-login entry in \(folder) is a symbolic link")
        case .notRegular, .otherOwner:
            return OIDCError(.tokenFileNotRegular, "a pending-login entry in \(folder) is not a regular file of this user")
        case .tooOpen: return OIDCError(.tokenFileTooOpen, "a pending-login entry in \(folder) is open to other users")
        case .tooLarge: return OIDCError(.pendingLoginUnreadable, "a pending-login entry in \(folder) is larger than 1 MiB")
        case .missing: return OIDCError(.pendingLoginStoreFailure, "\(what): no such file")
        case .system(let reason): return OIDCError(.pendingLoginStoreFailure, "\(what): \(reason)")
        }
    }

    private func failure(_ what: String) -> OIDCError {
        OIDCError(.pendingLoginStoreFailure, "\(what): \(String(cString: strerror(errno)))")
    }

    // MARK: - Format: "<expiry in ms since 1970>\n<bytes>"

    private static func split(_ contents: [UInt8]) -> (Int64, [UInt8])? {
        guard let newline = contents.firstIndex(of: 0x0A), newline > 0, newline <= 20,
            contents[..<newline].allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }),
            let expiry = Int64(String(decoding: contents[..<newline], as: UTF8.self))
        else { return nil }
        return (expiry, Array(contents[(newline + 1)...]))
    }

    private static func milliseconds(_ date: Date) -> Int64? {
        let value = (date.timeIntervalSince1970 * 1000).rounded(.down)
        return Int64(exactly: value)
    }

    private static func hex(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count * 2)
        for byte in bytes {
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: out, as: UTF8.self)
    }
}
