import Foundation
import JOSE
import OIDC
import OIDCSession
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `<path>.lock` is trusted only when it is a regular file of the current user.
@Suite("FileTokenStore: the lock file's ownership check")
struct FileTokenStoreLockFileTests {
    static let stale = TokenResponse(accessToken: "AT-old", refreshToken: "RT-old")

    /// A token file with `stale` saved, and a lock path prepared by `prepare`; runs one coordinated refresh.
    func refresh(prepare: (String) throws -> Void) async throws -> (error: OIDCError?, refreshed: Bool) {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("tokens-\(UUID().uuidString).json").path
        defer { try? FileManager.default.removeItem(atPath: path); try? FileManager.default.removeItem(atPath: path + ".lock") }
        try await FileTokenStore(path: path).save(Self.stale)
        try prepare(path + ".lock")
        let ran = Locked(false)
        do {
            _ = try await FileTokenStore(path: path).coordinatedRefresh(replacing: Self.stale) { _ in
                ran.withLock { $0 = true }
                return .refreshed(TokenResponse(accessToken: "AT-new", refreshToken: "RT-new"))
            }
            return (nil, ran.withLock { $0 })
        } catch let error as OIDCError {
            return (error, ran.withLock { $0 })
        }
    }

    @Test("a FIFO as the lock file is refused at once (no blocking), and nothing is refreshed")
    func fifo() async throws {
        let outcome = try await refresh { lock in try #require(mkfifo(lock, 0o600) == 0) }
        #expect(outcome.error?.code == .tokenFileNotRegular)
        #expect(!outcome.refreshed)
    }

    @Test("a symbolic link as the lock file is refused with token_file_not_regular")
    func symbolicLink() async throws {
        let target = FileManager.default.temporaryDirectory.appendingPathComponent("lock-target-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: target) }
        let outcome = try await refresh { lock in
            _ = FileManager.default.createFile(atPath: target, contents: nil)
            try #require(symlink(target, lock) == 0)
        }
        #expect(outcome.error?.code == .tokenFileNotRegular)
        #expect(!outcome.refreshed)
    }

    @Test("a folder as the lock file is refused with token_file_not_regular")
    func folder() async throws {
        let outcome = try await refresh { lock in try FileManager.default.createDirectory(atPath: lock, withIntermediateDirectories: false) }
        #expect(outcome.error?.code == .tokenFileNotRegular)
        #expect(!outcome.refreshed)
    }

    @Test("a lock file owned by another user is refused (needs root to plant one)", .enabled(if: geteuid() == 0))
    func otherOwner() async throws {
        let outcome = try await refresh { lock in
            _ = FileManager.default.createFile(atPath: lock, contents: nil)
            try #require(chown(lock, 65534, 65534) == 0)
        }
        #expect(outcome.error?.code == .tokenFileNotRegular)
        #expect(!outcome.refreshed)
    }

    @Test("the usual case: an own regular lock file (created or already there) works")
    func own() async throws {
        let created = try await refresh { _ in }
        #expect(created.error == nil && created.refreshed)
        let existing = try await refresh { lock in _ = FileManager.default.createFile(atPath: lock, contents: nil) }
        #expect(existing.error == nil && existing.refreshed)
    }
}
