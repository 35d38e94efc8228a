import Foundation
import JOSE
import Logging
import OIDC
import OIDCSession
import Synchronization
import Testing

@testable import hummingbird_app

/// `GET /login`'s stores: the order of its steps (nothing published for a login that was not saved, nothing
/// saved for one whose request object was not published) and the bounds per client address.
@Suite("hummingbird-app: the login's stores")
struct LoginStoresTests {
    /// A transport that must not be called (the logins here need no provider call).
    struct NoNetwork: HTTPTransport {
        func send(_ request: TransportRequest) async throws -> TransportResponse {
            throw TransportError.connectionFailed("no network in this test")
        }
    }

    /// A request-object store that records what it is asked to keep.
    actor RecordingObjects: RequestObjectStore {
        private(set) var saved: [String] = []
        func save(_ object: String, id: String, lifetime: Double, scope: String?) { saved.append(id) }
        func load(id: String) -> String? { nil }
    }

    /// A pending-login store whose saves always fail.
    struct FailingLogins: PendingLoginStore {
        func saveBytes(_ bytes: [UInt8], key: String, expiresIn: Double, scope: String?) async throws {
            throw OIDCError(.pendingLoginStoreFailure, "this store cannot save")
        }
        func consumeBytes(key: String) async throws -> [UInt8] {
            throw OIDCError(.pendingLoginNotFound, "nothing here")
        }
    }

    static func client() throws -> OIDCClient {
        var metadata = ProviderMetadata(issuer: "https://op.example")
        metadata.authorizationEndpoint = URL(string: "https://op.example/authorize")
        metadata.tokenEndpoint = URL(string: "https://op.example/token")
        metadata.jwksURI = URL(string: "https://op.example/jwks")
        return try OIDCClient(
            metadata: metadata, authentication: .clientSecretBasic(clientID: "hbapp", secret: "secret"),
            transport: NoNetwork())
    }

    static func starter(logins: any PendingLoginStore, objects: any RequestObjectStore) throws -> LoginStarter {
        let host = RequestObjectHost(store: objects, baseURL: "http://127.0.0.1:19300", lifetime: 300, logger: Logger(label: "test"))
        return LoginStarter(
            client: try client(), pendingLogins: logins,
            requestObject: RequestObject.Configuration(signature: .unsignedWithoutClientProof), requestObjects: host,
            redirectURI: URL(string: "http://127.0.0.1:19300/callback")!, scopes: ["openid"], responseType: .code)
    }

    static func code(_ body: () async throws -> Void) async -> String {
        do { try await body(); return "ok" } catch let error as OIDCError { return error.code.rawValue } catch { return "\(type(of: error))" }
    }

    @Test("a request object is not published when saving the pending login fails")
    func notPublishedWithoutPendingLogin() async throws {
        let objects = RecordingObjects()
        let starter = try Self.starter(logins: FailingLogins(), objects: objects)
        let outcome = await Self.code { _ = try await starter.start(handle: "browser-1", scope: "192.0.2.1") { _ in } }
        #expect(outcome == OIDCError.Code.pendingLoginStoreFailure.rawValue)
        #expect(await objects.saved.isEmpty)
    }

    @Test("a full share of the pending-login store refuses before anything is published")
    func fullShareRefusesBeforePublishing() async throws {
        let logins = InMemoryPendingLoginStore(capacity: 1_000, capacityPerScope: 10)
        let objects = InMemoryRequestObjectStore(capacity: 1_000, capacityPerScope: 1_000)
        let starter = try Self.starter(logins: logins, objects: objects)
        var outcomes: [String: Int] = [:]
        for index in 0..<50 {
            outcomes[await Self.code { _ = try await starter.start(handle: "flood-\(index)", scope: "203.0.113.9") { _ in } }, default: 0] += 1
        }
        #expect(outcomes == ["ok": 10, OIDCError.Code.pendingLoginStoreFull.rawValue: 40])
        // Exactly one request object per saved login: none for the 40 refused ones.
        #expect(await objects.count == 10)
        // Another address still logs in, and its request object is served at the login's request_uri.
        let pending = try await starter.start(handle: "honest", scope: "198.51.100.7") { _ in }
        let requestURI = try #require(
            URLComponents(url: pending.url, resolvingAgainstBaseURL: false)?.queryItems?
                .first { $0.name == "request_uri" }?.value)
        let id = try #require(requestURI.components(separatedBy: RequestObjectHost.pathPrefix).last)
        #expect(await objects.load(id: id) != nil)
        #expect(await logins.count(scope: "198.51.100.7") == 1)
    }

    /// A provider whose only endpoint is its key set (one encryption key), counting the fetches.
    final class KeySetProvider: HTTPTransport {
        let fetches = Mutex(0)
        let body: [UInt8]
        init() throws {
            let key = "{\"use\":\"enc\"," + String(try JWK.generate(.ec(.p256)).publicJWKString.dropFirst())
            body = Array("{\"keys\":[\(key)]}".utf8)
        }
        func send(_ request: TransportRequest) async throws -> TransportResponse {
            guard request.url.absoluteString == "https://op.example/jwks" else { throw TransportError.connectionFailed("unexpected call") }
            fetches.withLock { $0 += 1 }
            return TransportResponse(status: 200, headers: ["Content-Type": "application/json"], body: body)
        }
    }

    @Test("a client without room is refused before its request object is encrypted (no key-set fetch for it)")
    func refusedBeforeTheKeySetFetch() async throws {
        let provider = try KeySetProvider()
        var metadata = ProviderMetadata(issuer: "https://op.example")
        metadata.authorizationEndpoint = URL(string: "https://op.example/authorize")
        metadata.tokenEndpoint = URL(string: "https://op.example/token")
        metadata.jwksURI = URL(string: "https://op.example/jwks")
        let client = try OIDCClient(
            metadata: metadata, authentication: .clientSecretBasic(clientID: "hbapp", secret: "secret"),
            transport: provider)
        let logins = InMemoryPendingLoginStore(capacity: 1_000, capacityPerScope: 5)
        let host = RequestObjectHost(
            store: InMemoryRequestObjectStore(), baseURL: "http://127.0.0.1:19300", lifetime: 300,
            logger: Logger(label: "test"))
        let starter = LoginStarter(
            client: client, pendingLogins: logins,
            requestObject: RequestObject.Configuration(signature: .unsignedWithoutClientProof, encryption: RequestObject.Encryption()),
            requestObjects: host, redirectURI: URL(string: "http://127.0.0.1:19300/callback")!, scopes: ["openid"],
            responseType: .code)
        var outcomes: [String: Int] = [:]
        for index in 0..<30 {
            outcomes[await Self.code { _ = try await starter.start(handle: "flood-\(index)", scope: "203.0.113.9") { _ in } }, default: 0] += 1
        }
        #expect(outcomes == ["ok": 5, OIDCError.Code.pendingLoginStoreFull.rawValue: 25])
        #expect(provider.fetches.withLock { $0 } == 5)
    }

    @Test("a login whose request object cannot be published leaves no pending login behind")
    func pendingLoginWithdrawnWhenPublishingFails() async throws {
        let logins = InMemoryPendingLoginStore(capacity: 1_000, capacityPerScope: 100)
        let objects = InMemoryRequestObjectStore(capacity: 1, capacityPerScope: 1)
        try await objects.save("taken", id: "someone-else", lifetime: 300, scope: nil)
        let starter = try Self.starter(logins: logins, objects: objects)
        let outcome = await Self.code { _ = try await starter.start(handle: "browser-2", scope: "192.0.2.2") { _ in } }
        #expect(outcome == OIDCError.Code.requestObjectStoreFull.rawValue)
        #expect(await logins.count == 0)
        #expect(await Self.code { _ = try await logins.consumeBytes(key: "browser-2") } == OIDCError.Code.pendingLoginNotFound.rawValue)
    }

    @Test("the in-memory request-object store is bounded, in all and per address, and expired objects make room")
    func requestObjectStoreBounded() async throws {
        let clock = TestClock()
        let objects = InMemoryRequestObjectStore(capacity: 20, capacityPerScope: 5, clock: clock.read)
        var outcomes: [String] = []
        for index in 0..<12 {
            outcomes.append(await Self.code { try await objects.save("object", id: "a-\(index)", lifetime: 300, scope: "203.0.113.9") })
        }
        #expect(outcomes.filter { $0 == "ok" }.count == 5)
        #expect(outcomes.filter { $0 == OIDCError.Code.requestObjectStoreFull.rawValue }.count == 7)
        for index in 0..<15 { try await objects.save("object", id: "b-\(index)", lifetime: 300, scope: "scope-\(index)") }
        #expect(await objects.count == 20)
        // Full in all: even a new address is refused, and without a scope too.
        #expect(
            await Self.code { try await objects.save("object", id: "c", lifetime: 300, scope: "198.51.100.7") }
                == OIDCError.Code.requestObjectStoreFull.rawValue)
        #expect(
            await Self.code { try await objects.save("object", id: "d", lifetime: 300, scope: nil) }
                == OIDCError.Code.requestObjectStoreFull.rawValue)
        #expect(await objects.load(id: "a-0") == "object")
        clock.advance(301)
        #expect(await objects.load(id: "a-0") == nil)  // expired: not served
        try await objects.save("object", id: "e", lifetime: 300, scope: "203.0.113.9")
        #expect(await objects.count == 1)  // the expired ones were dropped on that save
        #expect(await objects.count(scope: "203.0.113.9") == 1)
    }
}

/// A clock the test moves.
final class TestClock: Sendable {
    private let current = Mutex(Date(timeIntervalSince1970: 1_800_000_000))
    var now: Date { current.withLock { $0 } }
    func advance(_ seconds: TimeInterval) { current.withLock { $0 = $0.addingTimeInterval(seconds) } }
    var read: @Sendable () -> Date { { [self] in self.now } }
}
