#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import OIDC

extension OIDCError.Code {
    /// The token file's refresh lock was not granted in time.
    public static let tokenFileLockTimeout = OIDCError.Code(rawValue: "token_file_lock_timeout")
}

extension FileTokenStore: CoordinatedTokenStore {
    /// ``CoordinatedTokenStore`` across the processes of one host (and the sessions of
    /// one process): an exclusive `flock` on `<path>.lock` (created with mode 0600,
    /// never deleted) is held while the file is compared, refreshed and written. The
    /// lock belongs to an open file: a process that dies holding it releases it.
    /// Waiting polls the lock (no thread blocks) for at most 60 s (`token_file_lock_timeout`).
    public func coordinatedRefresh(replacing stale: TokenResponse,
                                   _ refresh: @Sendable (TokenResponse) async throws -> RefreshStepResult) async throws
        -> CoordinatedRefreshResult {
        let lock = try await FileLock.acquire(path + ".lock", timeoutSeconds: 60)
        defer { lock.release() }
        guard let stored = try await load() else { return .loggedOut(nil) }
        guard stored.hasSameTokens(as: stale) else { return .alreadyRefreshed(stored) }
        switch try await refresh(stored) {
        case .refreshed(let fresh):
            do { try await save(fresh) } catch {
                return .refreshedNotStored(fresh, error as? OIDCError ?? OIDCError(.tokenStoreFailure, "the token file could not be written"))
            }
            return .refreshed(fresh)
        case .refused(let error):
            try await clear()
            return .loggedOut(error)
        }
    }
}

/// An exclusive advisory `flock` on a lock file, held until ``release()``.
struct FileLock {
    private let descriptor: Int32

    static func acquire(_ path: String, timeoutSeconds: Int) async throws -> FileLock {
        let descriptor = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            throw OIDCError(.tokenStoreFailure, "cannot open the lock file \(path): \(String(cString: strerror(errno)))")
        }
        let pollNanoseconds: UInt64 = 5_000_000
        var waited: UInt64 = 0
        while flock(descriptor, LOCK_EX | LOCK_NB) != 0 {
            let error = errno
            guard error == EWOULDBLOCK || error == EINTR else {
                close(descriptor)
                throw OIDCError(.tokenStoreFailure, "cannot lock \(path): \(String(cString: strerror(error)))")
            }
            guard waited < UInt64(timeoutSeconds) * 1_000_000_000 else {
                close(descriptor)
                throw OIDCError(.tokenFileLockTimeout, "another process held \(path) for more than \(timeoutSeconds) s")
            }
            do { try await Task.sleep(nanoseconds: pollNanoseconds) } catch {
                close(descriptor)
                throw error
            }
            waited += pollNanoseconds
        }
        return FileLock(descriptor: descriptor)
    }

    /// Unlocks and closes the lock file.
    func release() {
        flock(descriptor, LOCK_UN)
        close(descriptor)
    }
}
