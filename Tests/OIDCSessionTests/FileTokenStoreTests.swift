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
        #expect(!FileManager.default.fileExists(atPath: path + ".tmp-\(getpid())"))
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
        let session = try await AuthenticatedSession.resume(from: store, refresher: CountingRefresher(api: api), transport: api,
                                                            allowedOrigins: [Fixtures.api])
        #expect(try await session.send(HTTPRequest(url: Fixtures.api)).status == 200)
    }
}
