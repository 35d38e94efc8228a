import Foundation
import JOSE
import OIDC
import Testing

@testable import OIDCRedis

/// A provider's JWK Set endpoint in memory: counts the fetches; the set can change.
final class KeySetEndpoint: HTTPTransport, @unchecked Sendable {
    private let lock = NSLock()
    private var keys: [JWK]
    private var fetches = 0
    init(_ keys: [JWK]) { self.keys = keys }
    var count: Int { lock.withLock { fetches } }
    func replace(_ keys: [JWK]) { lock.withLock { self.keys = keys } }
    func send(_ request: TransportRequest) async throws -> TransportResponse {
        let body = lock.withLock { () -> String in
            fetches += 1
            return "{\"keys\":[" + keys.map { JSONValue.object($0.publicJWK).jsonString(sortedKeys: true) }.joined(separator: ",") + "]}"
        }
        return TransportResponse(status: 200, headers: ["Content-Type": "application/jwk-set+json", "Cache-Control": "max-age=300"], body: Array(body.utf8))
    }
}

@Suite("RedisKeySetSharing against a real server (REDIS_URL)", .enabled(if: TestRedis.enabled))
struct RedisKeySetSharingTests {
    @Test(
        "two replicas' JWK Set caches: one fetch for both; a new key fetched once by the first replica that needs it, taken by the other; max-age reduced by the copy's age"
    )
    func oneFetchPerChange() async throws {
        let a = try TestRedis.open(), b = try TestRedis.open()
        defer { a.close(); b.close() }
        let namespace = TestRedis.uniqueNamespace("jwks")
        let first = try JWK.generate(.ec(.p256)), second = try JWK.generate(.ec(.p256))
        let endpoint = KeySetEndpoint([first])
        let uri = try #require(URL(string: "https://op.example/jwks-\(UInt32.random(in: 0...UInt32.max))"))
        let cacheA = try JWKSetCache(jwksURI: uri, transport: try RedisKeySetSharing(database: a, transport: endpoint, namespace: namespace))
        let cacheB = try JWKSetCache(jwksURI: uri, transport: try RedisKeySetSharing(database: b, transport: endpoint, namespace: namespace))
        #expect(try await cacheA.keys().keys.count == 1)
        #expect(try await cacheB.keys().keys.count == 1)
        #expect(endpoint.count == 1)
        // The provider adds a key: replica A meets it first (an unknown kid makes its cache refresh) and fetches;
        // replica B, meeting it later, gets A's copy.
        endpoint.replace([first, second])
        #expect(try await cacheA.refresh().keys.count == 2)
        #expect(endpoint.count == 2)
        #expect(try await cacheB.refresh().keys.count == 2)
        #expect(endpoint.count == 2)
        // Asked again with nothing new shared: B fetches (its copy is the newest it knows).
        _ = try await cacheB.refresh()
        #expect(endpoint.count == 3)
        // The shared copy keeps its fetch time: served with max-age reduced by its age, and an Age header.
        let sharing = try RedisKeySetSharing(database: a, transport: endpoint, namespace: namespace)
        let response = try await sharing.send(TransportRequest(url: uri, headers: ["Accept": "application/jwk-set+json, application/json"], timeout: 10))
        #expect(response.headers["Age"] != nil)
        let maxAge = try #require(RedisKeySetSharing.maxAge(response.headers["Cache-Control"] ?? ""))
        #expect(maxAge <= 300)
        // Other requests pass through untouched.
        let other = try await sharing.send(TransportRequest(url: uri, headers: ["Accept": "application/json"], timeout: 10))
        #expect(other.status == 200 && endpoint.count == 4)
    }
}
