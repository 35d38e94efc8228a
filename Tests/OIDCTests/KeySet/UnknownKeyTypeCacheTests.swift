import Foundation
import JOSE
import Testing

@testable import OIDC

/// The same rule for fetched and fixed sets as for JOSE's `JWKSet`: keys of unknown types are skipped, never
/// fatal, and a token naming one by `kid` fails with `unsupported_key_type` (no re-fetch: the set answered).
@Suite("JWK Set cache and issuer keys: unknown key types")
struct UnknownKeyTypeCacheTests {
    let url = IDTokenFixtures.jwksURL.absoluteString
    let clock = TestClock()

    static let unknown = [
        #"{"kty":"AKP","alg":"SLH-DSA-SHA2-128s","pub":"AAAA","kid":"pq-1"}"#, #"{"kty":"PQX","kid":"future-1"}"#,
        #"{"kty":"OKP","crv":"Ed448","x":"AAAA","kid":"ed448-1"}"#,
    ]
    /// An `oct` key too: the cache and the fixed set narrow the set, which must keep the record of skipped keys.
    static let secret = #"{"kty":"oct","k":"c2VjcmV0LXNlY3JldC1zZWNyZXQtc2VjcmV0LXNlY3JldA","kid":"s"}"#

    func token(kid: String) throws -> String {
        try F.sign(F.claims(), key: F.privateKey("rsa2048", kid: kid), .rs256)
    }

    @Test("fetched: the set is read, the RSA key verifies, a kid naming an unknown-type key is unsupported_key_type without a re-fetch")
    func fetched() async throws {
        let transport = ScriptedTransport()
        let body = F.jwks(Self.unknown + [Self.secret, try F.publicJWK("rsa2048", kid: "k1")])
        transport.script(url, [.response(TransportResponse(status: 200, headers: [:], body: Array(body.utf8)))])
        let cache = try JWKSetCache(
            jwksURI: IDTokenFixtures.jwksURL, transport: transport, configuration: .init(refreshCoolDown: 30, clock: clock.now))
        #expect(try await cache.verify(CompactJWS(token(kid: "k1"))).keyID == "k1")
        for kid in ["pq-1", "future-1", "ed448-1"] {
            await expectOIDCError(.unsupportedKeyType) { try await cache.verify(CompactJWS(token(kid: kid))) }
            await expectOIDCError(.unsupportedKeyType) {
                try await IssuerKeys.cache(cache).verifySignature(CompactJWS(token(kid: kid)), policy: .default)
            }
        }
        #expect(transport.calls(url) == 1)
        #expect(await cache.skippedKeyCount == 4)
    }

    @Test("fixed set: a kid naming an unknown-type key is unsupported_key_type")
    func fixed() async throws {
        let set = try JWKSet(json: F.jwks(Self.unknown + [Self.secret, try F.publicJWK("rsa2048", kid: "k1")]))
        let keys = IssuerKeys.keySet(set)
        try await keys.verifySignature(CompactJWS(token(kid: "k1")), policy: .default)
        await expectOIDCError(.unsupportedKeyType) { try await keys.verifySignature(CompactJWS(token(kid: "pq-1")), policy: .default) }
        #expect(OIDCError.Code.unsupportedKeyType.category == .invalidInput)
    }
}
