import Foundation
import OIDC
import OIDCSession
import Testing

@Suite("FileTokenStore coordinated refresh (flock)")
struct FileTokenStoreCoordinationTests {
    static let stale = TokenResponse(accessToken: "AT-old", refreshToken: "RT-old")

    func temporaryPath() -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("tokens-\(UUID().uuidString).json").path
    }

    final class Counter: @unchecked Sendable {
        private let lock = NSLock()
        private var count = 0
        func next() -> Int { lock.lock(); defer { lock.unlock() }; count += 1; return count }
        var value: Int { lock.lock(); defer { lock.unlock() }; return count }
    }

    @Test("30 stores on one file refresh once; the others read the result")
    func singleFlight() async throws {
        let path = temporaryPath()
        defer { try? FileManager.default.removeItem(atPath: path); try? FileManager.default.removeItem(atPath: path + ".lock") }
        try await FileTokenStore(path: path).save(Self.stale)
        let counter = Counter()
        let tokens = try await withThrowingTaskGroup(of: String.self) { group in
            for _ in 0..<30 {
                group.addTask {
                    let result = try await FileTokenStore(path: path).coordinatedRefresh(replacing: Self.stale) { stored in
                        #expect(stored.refreshToken == "RT-old")
                        let n = counter.next()
                        try await Task.sleep(nanoseconds: 50_000_000)
                        return .refreshed(TokenResponse(accessToken: "AT-\(n)", refreshToken: "RT-\(n)"))
                    }
                    switch result {
                    case .refreshed(let t), .alreadyRefreshed(let t), .refreshedNotStored(let t, _): return t.accessToken
                    case .loggedOut: return "logged out"
                    }
                }
            }
            return try await group.reduce(into: [String]()) { $0.append($1) }
        }
        #expect(counter.value == 1)
        #expect(Set(tokens) == ["AT-1"])
        #expect(try await FileTokenStore(path: path).load()?.refreshToken == "RT-1")
    }

    @Test("another process holding the lock and writing newer tokens: no refresh here, its tokens are used")
    func otherProcess() async throws {
        let path = temporaryPath()
        defer { try? FileManager.default.removeItem(atPath: path); try? FileManager.default.removeItem(atPath: path + ".lock") }
        try await FileTokenStore(path: path).save(Self.stale)
        // flock(1) takes the lock, then the shell replaces the file (as another process's refresh would).
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/flock")
        let script =
            #"umask 077; sleep 0.5; printf '{"access_token":"AT-other","token_type":"Bearer","refresh_token":"RT-other"}' > "$1.new"; mv "$1.new" "$1""#
        process.arguments = [path + ".lock", "sh", "-c", script, "sh", path]
        try process.run()
        // Wait until flock(1) holds the lock (a non-blocking probe is refused), however slow the machine:
        // a fixed sleep let this test take the lock first when process start-up was slow.
        var held = false
        for _ in 0..<500 where !held {
            // Already done (a stall longer than its 0.5 s hold): the store then finds the file replaced, the same outcome.
            if (try? String(contentsOfFile: path, encoding: .utf8))?.contains("AT-other") == true { held = true; break }
            let probe = Process()
            probe.executableURL = URL(fileURLWithPath: "/usr/bin/flock")
            probe.arguments = ["-n", path + ".lock", "true"]
            try probe.run()
            probe.waitUntilExit()  // brief: flock -n exits at once
            held = probe.terminationStatus != 0
            if !held { try await Task.sleep(nanoseconds: 10_000_000) }
        }
        try #require(held, "flock(1) never took the lock")  // (or replaced the file)
        let counter = Counter()
        let result = try await FileTokenStore(path: path).coordinatedRefresh(replacing: Self.stale) { _ in
            _ = counter.next()
            return .refreshed(TokenResponse(accessToken: "AT-mine", refreshToken: "RT-mine"))
        }
        process.waitUntilExit()  // brief: the store took the lock flock(1) released: it is ending
        guard case .alreadyRefreshed(let tokens) = result else { Issue.record("expected alreadyRefreshed, got \(result)"); return }
        #expect(tokens.accessToken == "AT-other")
        #expect(counter.value == 0)
    }

    @Test("tokens issued while the file cannot be written come back as refreshedNotStored, with the error")
    func notStored() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("tokens-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/tokens.json"
        try await FileTokenStore(path: path).save(Self.stale)
        let result = try await FileTokenStore(path: path).coordinatedRefresh(replacing: Self.stale) { _ in
            try FileManager.default.removeItem(atPath: folder)  // the save that follows cannot create its temporary file
            return .refreshed(TokenResponse(accessToken: "AT-new", refreshToken: "RT-new"))
        }
        guard case .refreshedNotStored(let tokens, let error) = result else { Issue.record("expected refreshedNotStored, got \(result)"); return }
        #expect(tokens.accessToken == "AT-new")
        #expect(error.code == .tokenStoreFailure)
    }

    @Test("a refused refresh empties the file once; later callers are logged out without a refresh")
    func refused() async throws {
        let path = temporaryPath()
        defer { try? FileManager.default.removeItem(atPath: path); try? FileManager.default.removeItem(atPath: path + ".lock") }
        try await FileTokenStore(path: path).save(Self.stale)
        let counter = Counter()
        var errors = 0
        for _ in 0..<3 {
            let result = try await FileTokenStore(path: path).coordinatedRefresh(replacing: Self.stale) { _ in
                _ = counter.next()
                return .refused(OIDCError(.loggedOut, "invalid_grant"))
            }
            guard case .loggedOut(let error) = result else { Issue.record("expected loggedOut, got \(result)"); continue }
            if error != nil { errors += 1 }
        }
        #expect(counter.value == 1 && errors == 1)
        #expect(try await FileTokenStore(path: path).load() == nil)
    }
}
