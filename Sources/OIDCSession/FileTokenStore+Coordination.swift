import OIDC

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension FileTokenStore: CoordinatedTokenStore {
    /// ``CoordinatedTokenStore`` across the processes of one host (and the sessions of
    /// one process): an exclusive `flock` on `<path>.lock` (created with mode 0600,
    /// never deleted) is held while the file is compared, refreshed and written. The
    /// lock belongs to an open file: a process that dies holding it releases it.
    /// Waiting polls the lock (no thread blocks) for at most 60 s (`token_file_lock_timeout`).
    /// The lock file is refused (`token_file_not_regular`) unless it is a regular file owned by
    /// the current user: it is opened with `O_NOFOLLOW|O_NONBLOCK` (a symbolic link is refused, a
    /// FIFO never blocks) and checked with `fstat` before it is locked, so another user cannot
    /// plant a lock file that makes every refresh wait or fail.
    public func coordinatedRefresh(
        replacing stale: TokenResponse,
        _ refresh: @Sendable (TokenResponse) async throws -> RefreshStepResult
    ) async throws
        -> CoordinatedRefreshResult
    {
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

    /// Opens (creating it with mode 0600 if needed) and locks `path`.
    /// - Throws: ``OIDC/OIDCError`` `.tokenFileNotRegular` for a symbolic link, a FIFO, device or folder, or a
    ///   file of another user; `.tokenStoreFailure` when it cannot be opened or locked; `.tokenFileLockTimeout`.
    static func acquire(_ path: String, timeoutSeconds: Int) async throws -> FileLock {
        let descriptor = try openOwnedRegularFile(path)
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

    /// A descriptor of `path` (created with mode 0600 when missing) after checking that it is a regular
    /// file owned by the effective user. `O_NONBLOCK` keeps a FIFO from blocking the open; `O_NOFOLLOW`
    /// refuses a symbolic link (`ELOOP`); `fstat` on the opened descriptor judges what was actually opened.
    static func openOwnedRegularFile(_ path: String) throws -> Int32 {
        let descriptor = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            let error = errno
            if error == ELOOP { throw OIDCError(.tokenFileNotRegular, "the lock file \(path) is a symbolic link") }
            if error == ENXIO || error == EISDIR {
                throw OIDCError(.tokenFileNotRegular, "the lock file \(path) is not a regular file")
            }
            throw OIDCError(.tokenStoreFailure, "cannot open the lock file \(path): \(String(cString: strerror(error)))")
        }
        var info = stat()
        guard fstat(descriptor, &info) == 0 else {
            let error = errno
            close(descriptor)
            throw OIDCError(.tokenStoreFailure, "cannot inspect the lock file \(path): \(String(cString: strerror(error)))")
        }
        guard info.st_mode & S_IFMT == S_IFREG else {
            close(descriptor)
            throw OIDCError(.tokenFileNotRegular, "the lock file \(path) is not a regular file")
        }
        guard info.st_uid == geteuid() else {
            close(descriptor)
            throw OIDCError(.tokenFileNotRegular, "the lock file \(path) belongs to another user")
        }
        return descriptor
    }

    /// Unlocks and closes the lock file.
    func release() {
        flock(descriptor, LOCK_UN)
        close(descriptor)
    }
}
