import Foundation
import OIDC
import OIDCSession
import Testing

@Suite("FileTokenStore")
struct FileTokenStoreTests {
    func temporaryPath() -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("tokens-\(UUID().uuidString).json").path
    }

    @Test("saves atomically with mode 0600, loads back, clears to empty")
    func roundTrip() async throws {
        let path = temporaryPath()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let store = FileTokenStore(path: path)
        #expect(try await store.load() == nil)
        let tokens = TokenResponse(accessToken: "AT", expiresAt: Date(timeIntervalSince1970: 1_900_000_000), refreshToken: "RT", idToken: "a.b.c")
        try await store.save(tokens)
        let mode = try #require(try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int)
        #expect(mode == 0o600)
        let loaded = try #require(try await store.load())
        #expect(loaded.accessToken == "AT" && loaded.refreshToken == "RT" && loaded.idToken == "a.b.c")
        #expect(loaded.expiresAt == Date(timeIntervalSince1970: 1_900_000_000))
        try await store.clear()
        #expect(try await store.load() == nil)
        #expect(FileManager.default.fileExists(atPath: path))
        #expect(try leftovers(of: path).isEmpty)
    }

    /// Temporary files of `path` still in its folder.
    func leftovers(of path: String) throws -> [String] {
        let url = URL(fileURLWithPath: path)
        let prefix = url.lastPathComponent + ".tmp"
        return try FileManager.default.contentsOfDirectory(atPath: url.deletingLastPathComponent().path).filter { $0.hasPrefix(prefix) }
    }

    @Test("200 concurrent saves in one process all succeed; the file holds one of them whole, then the last save wins")
    func concurrentSaves() async throws {
        let path = temporaryPath()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let store = FileTokenStore(path: path)
        let failures = await withTaskGroup(of: String?.self) { group in
            for index in 0..<200 {
                group.addTask {
                    do { try await store.save(TokenResponse(accessToken: "AT-\(index)", refreshToken: "RT-\(index)")); return nil } catch {
                        return "\(error)"
                    }
                }
            }
            return await group.reduce(into: [String]()) { if let failure = $1 { $0.append(failure) } }
        }
        #expect(failures.isEmpty, "\(failures.count) saves failed, e.g. \(failures.first ?? "")")
        let loaded = try #require(try await store.load())
        let index = try #require(Int(loaded.accessToken.dropFirst(3)))
        #expect((0..<200).contains(index) && loaded.refreshToken == "RT-\(index)")
        #expect(try leftovers(of: path).isEmpty)
        try await store.save(TokenResponse(accessToken: "AT-last", refreshToken: "RT-last"))
        #expect(try await store.load()?.refreshToken == "RT-last")
    }

    @Test("a FIFO at the path is refused at once, not opened for a blocking read", .timeLimit(.minutes(1)))
    func refusesFIFO() async throws {
        let path = temporaryPath()
        defer { try? FileManager.default.removeItem(atPath: path) }
        #expect(mkfifo(path, 0o600) == 0)
        await #expect { try await FileTokenStore(path: path).load() } throws: { ($0 as? OIDCError)?.code == .tokenFileNotRegular }
    }

    @Test("a symbolic link or a directory at the path is refused")
    func refusesLinkAndDirectory() async throws {
        let target = temporaryPath(), link = temporaryPath(), folder = temporaryPath()
        defer { for path in [target, link, folder] { try? FileManager.default.removeItem(atPath: path) } }
        try await FileTokenStore(path: target).save(TokenResponse(accessToken: "AT"))
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: target)
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
        for path in [link, folder] {
            await #expect { try await FileTokenStore(path: path).load() } throws: { ($0 as? OIDCError)?.code == .tokenFileNotRegular }
        }
    }

    @Test("a save that cannot be written is an error, not silence")
    func saveFailureThrows() async throws {
        let path = "/nonexistent-folder-\(UUID().uuidString)/tokens.json"
        await #expect { try await FileTokenStore(path: path).save(TokenResponse(accessToken: "AT")) } throws: {
            ($0 as? OIDCError)?.code == .tokenStoreFailure
        }
    }

    @Test("refuses a file others can read or write", arguments: [0o644, 0o640, 0o606, 0o660])
    func refusesOpenFile(_ mode: Int) async throws {
        let path = temporaryPath()
        defer { try? FileManager.default.removeItem(atPath: path) }
        try Data(#"{"access_token":"AT","token_type":"Bearer"}"#.utf8).write(to: URL(fileURLWithPath: path))
        try FileManager.default.setAttributes([.posixPermissions: mode], ofItemAtPath: path)
        await #expect { try await FileTokenStore(path: path).load() } throws: { ($0 as? OIDCError)?.code == .tokenFileTooOpen }
    }

    @Test("a session resumes from the stored tokens")
    func resume() async throws {
        let path = temporaryPath()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let store = FileTokenStore(path: path)
        try await store.save(TokenResponse(accessToken: "AT-1", refreshToken: "RT-1"))
        let api = ScriptedAPI(validToken: "AT-1")
        let session = try await AuthenticatedSession.resume(
            refresher: CountingRefresher(api: api),
            configuration: .init(allowedOrigins: [Fixtures.api], transport: api, store: store, proactiveRefreshMargin: nil))
        #expect(try await session.send(TransportRequest(url: Fixtures.api)).status == 200)
    }
}
