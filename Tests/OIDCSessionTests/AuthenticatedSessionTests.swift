import Foundation
import OIDC
import OIDCSession
import Testing

@Suite("AuthenticatedSession with a scripted transport")
struct AuthenticatedSessionTests {
    func session(_ api: ScriptedAPI, _ refresher: CountingRefresher, store: (any TokenStore)? = nil) throws -> AuthenticatedSession {
        try AuthenticatedSession(
            tokens: Fixtures.start, refresher: refresher,
            configuration: .init(
                allowedOrigins: [URL(string: "https://api.example.com")!], transport: api,
                store: store, proactiveRefreshMargin: nil))
    }

    @Test("the token goes only to allowed origins, replacing any Authorization header")
    func origins() async throws {
        let api = ScriptedAPI(validToken: "AT-1")
        let session = try session(api, CountingRefresher(api: api))
        var request = TransportRequest(url: Fixtures.api, headers: ["authorization": "Basic stale"])
        _ = try await session.send(request)
        request.url = URL(string: "https://evil.example.com/steal")!
        request.headers = [:]
        _ = try await session.send(request)
        _ = try await session.send(TransportRequest(url: URL(string: "https://api.example.com:8443/other-port")!))
        _ = try await session.send(TransportRequest(url: URL(string: "http://api.example.com/plain-http")!))
        #expect(api.seenAuthorizations == ["Bearer AT-1", nil, nil, nil])
    }

    @Test("a 401 refreshes once and retries once with the new token; the body survives")
    func refreshOnce() async throws {
        let api = ScriptedAPI(validToken: "AT-0")  // AT-1 is already refused
        let refresher = CountingRefresher(api: api)
        let store = InMemoryTokenStore()
        let session = try session(api, refresher, store: store)
        let response = try await session.send(TransportRequest(method: "POST", url: Fixtures.api, body: .bytes(Array("payload".utf8))))
        #expect(response.status == 200)
        #expect(refresher.callCount == 1)
        #expect(api.seenAuthorizations == ["Bearer AT-1", "Bearer AT-2"])
        #expect(api.bodies == [Array("payload".utf8), Array("payload".utf8)])
        #expect(await store.load()?.accessToken == "AT-2")
        #expect(await session.currentTokens?.refreshToken == "RT-2")
    }

    @Test("a second 401 is returned as it is: no loop")
    func noLoop() async throws {
        let api = ScriptedAPI(validToken: "never")
        let refresher = CountingRefresher(api: ScriptedAPI(validToken: "x"))  // refreshes, but the API keeps refusing
        let response = try await session(api, refresher).send(TransportRequest(url: Fixtures.api))
        #expect(response.status == 401)
        #expect(refresher.callCount == 1)
        #expect(api.seenAuthorizations.count == 2)
    }

    @Test("N concurrent requests failing with the same token share exactly one refresh", arguments: [100, 1000])
    func concurrentRefresh(_ count: Int) async throws {
        let api = ScriptedAPI(validToken: "AT-0")
        let refresher = CountingRefresher(api: api)
        let session = try session(api, refresher)
        let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<count { group.addTask { try await session.send(TransportRequest(url: Fixtures.api)).status } }
            return try await group.reduce(into: [Int]()) { $0.append($1) }
        }
        #expect(statuses.count == count && statuses.allSatisfy { $0 == 200 })
        #expect(refresher.callCount == 1)
        // Every request was tried at most twice, and every retry used the winner's token.
        let seen = api.seenAuthorizations
        #expect(seen.count <= 2 * count)
        #expect(seen.filter { $0 == "Bearer AT-2" }.count == count)
    }

    @Test("a request that started with an older token retries with the current one without a new refresh")
    func olderToken() async throws {
        let api = ScriptedAPI(validToken: "AT-0")
        let refresher = CountingRefresher(api: api)
        let session = try session(api, refresher)
        _ = try await session.send(TransportRequest(url: Fixtures.api))  // refresh #1 → AT-2
        _ = try await session.send(TransportRequest(url: Fixtures.api))  // AT-2 accepted directly
        #expect(refresher.callCount == 1)
        #expect(api.seenAuthorizations == ["Bearer AT-1", "Bearer AT-2", "Bearer AT-2"])
    }

    @Test("a refused refresh clears the tokens and the store, emits logged-out once, and fails every waiter", arguments: [1, 100, 1000])
    func refused(_ count: Int) async throws {
        let api = ScriptedAPI(validToken: "AT-0")
        let refresher = CountingRefresher(api: api, mode: .refuse)
        let store = InMemoryTokenStore(Fixtures.start)
        let session = try session(api, refresher, store: store)
        let codes = await withTaskGroup(of: OIDCError.Code?.self) { group in
            for _ in 0..<count {
                group.addTask {
                    do { _ = try await session.send(TransportRequest(url: Fixtures.api)); return nil } catch let error as OIDCError { return error.code } catch
                    { return nil }
                }
            }
            return await group.reduce(into: [OIDCError.Code?]()) { $0.append($1) }
        }
        #expect(codes.allSatisfy { $0 == .loggedOut || $0 == .notAuthenticated })
        #expect(codes.filter { $0 == .loggedOut }.count >= 1)
        #expect(refresher.callCount == 1)
        #expect(await store.load() == nil)
        #expect(await session.currentTokens == nil)
        var events = session.events.makeAsyncIterator()
        let first = await events.next()
        guard case .loggedOut(let error) = first else { Issue.record("expected loggedOut, got \(String(describing: first))"); return }
        #expect(error.oauthError?.code == .invalidGrant)
    }

    @Test("a transport failure during refresh keeps the tokens")
    func transportFailureKeepsTokens() async throws {
        let api = ScriptedAPI(validToken: "AT-0")
        let store = InMemoryTokenStore(Fixtures.start)
        let session = try session(api, CountingRefresher(api: api, mode: .transportFailure), store: store)
        await #expect { try await session.send(TransportRequest(url: Fixtures.api)) } throws: { ($0 as? OIDCError)?.code == .refreshFailed }
        #expect(await session.currentTokens?.accessToken == "AT-1")
        #expect(await store.load()?.accessToken == "AT-1")
    }

    @Test("no refresh token: logged out")
    func noRefreshToken() async throws {
        let api = ScriptedAPI(validToken: "AT-0")
        let session = try AuthenticatedSession(
            tokens: TokenResponse(accessToken: "AT-1"), refresher: CountingRefresher(api: api),
            configuration: .init(allowedOrigins: [Fixtures.api], transport: api, proactiveRefreshMargin: nil))
        await #expect { try await session.send(TransportRequest(url: Fixtures.api)) } throws: { ($0 as? OIDCError)?.code == .loggedOut }
    }

    @Test("a one-shot streamed body cannot be retried: typed error, not an empty retry")
    func streamedBody() async throws {
        let api = ScriptedAPI(validToken: "AT-0")
        let refresher = CountingRefresher(api: api)
        let stream = AsyncStream<[UInt8]> {
            $0.yield([1, 2, 3]); $0.finish()
        }
        await #expect { try await session(api, refresher).send(TransportRequest(method: "PUT", url: Fixtures.api, body: .stream(stream))) } throws: {
            ($0 as? OIDCError)?.code == .bodyNotReplayable
        }
        #expect(api.seenAuthorizations.count == 1)
    }

    @Test("proactive refresh before an expiring token is used")
    func proactive() async throws {
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        let api = ScriptedAPI(validToken: "AT-1")
        let refresher = CountingRefresher(api: api)
        let expiring = TokenResponse(accessToken: "AT-1", expiresAt: now.addingTimeInterval(20), refreshToken: "RT-1")
        let session = try AuthenticatedSession(
            tokens: expiring, refresher: refresher,
            configuration: .init(allowedOrigins: [Fixtures.api], transport: api, proactiveRefreshMargin: 60, clock: { now }))
        _ = try await session.send(TransportRequest(url: Fixtures.api))
        #expect(refresher.callCount == 1)
        #expect(api.seenAuthorizations == ["Bearer AT-2"])
    }

    @Test("descriptions never show tokens")
    func redaction() async throws {
        let tokens = TokenResponse(accessToken: "secret-access", refreshToken: "secret-refresh", idToken: "secret.id.token")
        for text in [String(describing: tokens), String(reflecting: tokens), "\(SessionEvent.loggedOut(OIDCError(.loggedOut, "x")))"] {
            #expect(!text.contains("secret"))
        }
    }
}
