import Foundation
import JOSE
import Testing

@testable import OIDC

/// Aggregated and distributed claims (OpenID Connect Core §5.6.2) through ``OIDCClient/resolveClaims(_:trusting:fetchPolicy:)``:
/// verified with the named claims provider's keys, fetched under the fetch policy, every failure a typed reason.
@Suite("OIDCClient: aggregated and distributed claims")
struct AggregatedClaimsTests {
    static let claimsIssuer = "https://claims.example.com"
    static let endpoint = "https://claims.example.com/claims"

    static func client() throws -> (OIDCClient, UserInfoRequestRecorder) {
        let transport = UserInfoRequestRecorder()
        let client = try OIDCClient(
            metadata: OIDCClientTests.metadata(), authentication: .clientSecretBasic(clientID: F.clientID, secret: "s3cret-s3cret-s3cret-s3cret-s3cret!"),
            transport: transport, configuration: OIDCClient.Configuration(clock: TestClock().now))
        return (client, transport)
    }

    /// The claims provider's key (P-256) and a validator trusting it.
    static let providerKey: JWK = (try? F.privateKey("p256", kid: "cp-1")) ?? JWK(symmetricKey: Array(repeating: 1, count: 32))
    static var trusted: ForeignTokenValidator {
        ForeignTokenValidator(trustedKeys: [claimsIssuer: .keySet(JWKSet(keys: [providerKey.publicKey]))], clock: TestClock().now)
    }
    static let policy = (try? RemoteFetchPolicy(allowedHosts: [RemoteFetchPolicy.HostPort(host: "claims.example.com", port: 443)])) ?? .publicHostsOnly

    static func signed(_ claims: JSONObject, key: JWK = providerKey) throws -> String {
        try JWT.sign(claims, key: key, algorithm: .es256)
    }

    static func userInfo(names: JSONObject, sources: JSONObject, extra: JSONObject = [:]) -> JSONObject {
        var object: JSONObject = ["sub": "alice", "_claim_names": .object(names), "_claim_sources": .object(sources)]
        for member in extra { object[member.name] = member.value }
        return object
    }

    @Test("aggregated: a JWT signed by the trusted provider is merged; only the claims named for it; the OP's own claims kept")
    func aggregated() async throws {
        let (client, _) = try Self.client()
        let jwt = try Self.signed(["iss": .string(Self.claimsIssuer), "eye_color": "blue", "shoe_size": 8, "email": "evil@example.com", "other": "x"])
        let claims = Self.userInfo(
            names: ["eye_color": "src1", "shoe_size": "src1", "email": "src1"], sources: ["src1": ["JWT": .string(jwt)]],
            extra: ["email": "a@example.com"])
        let resolved = await client.resolveClaims(claims, trusting: Self.trusted)
        #expect(resolved.unresolved.isEmpty, "\(resolved.unresolved)")
        #expect(resolved["eye_color"]?.stringValue == "blue")
        #expect(resolved["shoe_size"]?.int64Value == 8)
        #expect(resolved["email"]?.stringValue == "a@example.com")
        #expect(resolved["other"] == nil)
        #expect(resolved["_claim_names"] == nil && resolved["_claim_sources"] == nil)
        #expect(resolved["sub"]?.stringValue == "alice")
    }

    @Test("aggregated: unsigned, untrusted, issuer-less, badly signed or missing sources stay unresolved with their code")
    func aggregatedRefusals() async throws {
        let (client, _) = try Self.client()
        func reason(_ jwt: String) async -> String? {
            let claims = Self.userInfo(names: ["eye_color": "src1"], sources: ["src1": ["JWT": .string(jwt)]])
            return await client.resolveClaims(claims, trusting: Self.trusted).unresolved["eye_color"]?.code.rawValue
        }
        #expect(await reason(F.unsecured(["iss": .string(Self.claimsIssuer), "eye_color": "blue"])) == "unsecured_token")
        #expect(await reason(try Self.signed(["iss": "https://other.example.com", "eye_color": "blue"])) == "untrusted_issuer")
        #expect(await reason(try Self.signed(["eye_color": "blue"])) == "missing_issuer")
        let stranger = try JWK.generate(.ec(.p256))
        #expect(await reason(try Self.signed(["iss": .string(Self.claimsIssuer), "eye_color": "blue"], key: stranger)) != nil)
        #expect(await reason(F.tamper(try Self.signed(["iss": .string(Self.claimsIssuer), "eye_color": "blue"]))) != nil)
        #expect(await reason(try Self.signed(["iss": .string(Self.claimsIssuer), "eye_color": "blue", "aud": "someone-else"])) == "audience_mismatch")
        #expect(await reason(try Self.signed(["iss": .string(Self.claimsIssuer), "eye_color": "blue", "exp": 1])) == "expired")
        #expect(await reason(try Self.signed(["iss": .string(Self.claimsIssuer), "hair": "red"])) == "invalid_claim_source")
        #expect(await reason("not a jwt") == "invalid_claim_source")
        // A name whose source is absent from _claim_sources, and a malformed _claim_names.
        let missing = await client.resolveClaims(Self.userInfo(names: ["age": "src9"], sources: [:]), trusting: Self.trusted)
        #expect(missing.unresolved["age"]?.code == .invalidClaimSource)
        let malformed = await client.resolveClaims(["sub": "alice", "_claim_names": "x"], trusting: Self.trusted)
        #expect(malformed.unresolved["_claim_names"]?.code == .invalidClaimSource)
        // No _claim_names: the claims as they are.
        let plain = await client.resolveClaims(["sub": "alice"], trusting: Self.trusted)
        #expect(plain.claims == ["sub": "alice"] && plain.unresolved.isEmpty)
    }

    @Test("distributed: fetched with its access token as Bearer, under the fetch policy, then verified")
    func distributed() async throws {
        let (client, transport) = try Self.client()
        transport.inner.json(Self.endpoint, try Self.signed(["iss": .string(Self.claimsIssuer), "age": 30]), headers: ["Content-Type": "application/jwt"])
        let claims = Self.userInfo(names: ["age": "src1"], sources: ["src1": ["endpoint": .string(Self.endpoint), "access_token": "claims-token"]])
        let resolved = await client.resolveClaims(claims, trusting: Self.trusted, fetchPolicy: Self.policy)
        #expect(resolved.unresolved.isEmpty, "\(resolved.unresolved)")
        #expect(resolved["age"]?.int64Value == 30)
        #expect(transport.inner.calls(Self.endpoint) == 1)

        // The default policy refuses a host it cannot vouch for: nothing is sent.
        let refused = await client.resolveClaims(claims, trusting: Self.trusted)
        #expect(refused.unresolved["age"]?.code == .claimSourceHostRefused)
        let privateHost = Self.userInfo(names: ["age": "src1"], sources: ["src1": ["endpoint": "https://10.0.0.7/claims"]])
        #expect(await client.resolveClaims(privateHost, trusting: Self.trusted).unresolved["age"]?.code == .claimSourceHostRefused)
        #expect(transport.inner.calls(Self.endpoint) == 1)
        #expect(transport.inner.calls("https://10.0.0.7/claims") == 0)
        // http is refused even for an admitted host (the issuer is https).
        let httpPolicy = try RemoteFetchPolicy(allowedHosts: [RemoteFetchPolicy.HostPort(host: "claims.example.com", port: 80)])
        let http = Self.userInfo(names: ["age": "src1"], sources: ["src1": ["endpoint": "http://claims.example.com/claims"]])
        #expect(await client.resolveClaims(http, trusting: Self.trusted, fetchPolicy: httpPolicy).unresolved["age"]?.code == .insecureURL)
        // An error status, and no answer at all.
        transport.inner.json(Self.endpoint, "nope", status: 401)
        #expect(await client.resolveClaims(claims, trusting: Self.trusted, fetchPolicy: Self.policy).unresolved["age"]?.code == .invalidClaimSource)
        transport.inner.then(Self.endpoint, .failure(TransportError.connectionFailed("refused")))
        #expect(await client.resolveClaims(claims, trusting: Self.trusted, fetchPolicy: Self.policy).unresolved["age"]?.code == .claimSourceTransportFailed)
    }
}
