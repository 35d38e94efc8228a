import Foundation
import JOSE
import Testing

@testable import OIDC

@Suite("Another issuer's token: the port_token of a carrier migration")
struct ForeignTokenValidatorTests {
    static let oldCarrier = "https://old-carrier.example"
    static let newCarrier = "https://new-carrier.example"
    let clock = TestClock()
    let transport = ScriptedTransport()

    init() throws {
        transport.json(Self.oldCarrier + "/.well-known/openid-configuration", DiscoveryTests.document(issuer: Self.oldCarrier))
        transport.json(Self.oldCarrier + "/jwks", F.jwks([try F.publicJWK("p256", kid: "old-1"), try F.publicJWK("rsa2048", kid: "old-rsa")]))
    }

    func portToken(_ changes: [(String, JSONValue?)] = [], kid: String = "old-1", key: String = "p256", alg: JWSAlgorithm = .es256) throws -> String {
        try F.sign(
            F.claims([("iss", .string(Self.oldCarrier)), ("aud", .string(Self.newCarrier)), ("sub", "old-subscriber-9")] + changes),
            key: F.privateKey(key, kid: kid), alg)
    }

    var verifier: ForeignTokenValidator {
        ForeignTokenValidator(trustedIssuers: [Self.oldCarrier], transport: transport, clock: clock.now)
    }

    @Test("the port_token inside aka verifies with the previous carrier's key, found through its discovery")
    func verifiesPortToken() async throws {
        let port = try portToken()
        let idToken = try IDToken(
            F.sign(
                F.claims([("iss", .string(Self.newCarrier)), ("aka", ["port_token": .string(port)])]),
                key: F.privateKey("rsa2048", kid: "new-1"), .rs256))
        let extracted = try #require(try ForeignTokenValidator.portToken(in: idToken))
        let verified = try await verifier.validate(extracted, audience: .contains(Self.newCarrier))
        #expect(verified.subject == "old-subscriber-9")
        #expect(verified.issuer == Self.oldCarrier)
        #expect(transport.calls(Self.oldCarrier + "/jwks") == 1)
        _ = try await verifier.validate(extracted, audience: .anyAudience)
    }

    @Test("an issuer outside the trusted list is refused without any request")
    func untrusted() async throws {
        let token = try portToken([("iss", "https://rogue.example")])
        await expectOIDCError(.untrustedIssuer) { try await verifier.validate(token, audience: .anyAudience) }
        await expectOIDCError(.missingIssuer) { try await verifier.validate(try portToken([("iss", nil)]), audience: .anyAudience) }
        #expect(transport.totalCalls == 0)
    }

    @Test("each check has its own code")
    func failures() async throws {
        let v = verifier
        await expectOIDCError(.signingKeyNotFound) { try await v.validate(try portToken(kid: "unknown"), audience: .anyAudience) }
        await expectOIDCError(.invalidSignature) { try await v.validate(F.tamper(try portToken()), audience: .anyAudience) }
        await expectOIDCError(.expired) { try await v.validate(try portToken([("exp", 1_700_000_000)]), audience: .anyAudience) }
        await expectOIDCError(.missingExpiry) { try await v.validate(try portToken([("exp", nil)]), audience: .anyAudience) }
        await expectOIDCError(.audienceMismatch) { try await v.validate(try portToken(), audience: .contains("someone-else")) }
        await expectOIDCError(.unsecuredToken) { try await v.validate(F.unsecured(F.claims([("iss", .string(Self.oldCarrier))])), audience: .anyAudience) }
        let secret = JWK(symmetricKey: Array("a-shared-secret-that-is-long-enough-for-hs256".utf8))
        let hs = try F.sign(F.claims([("iss", .string(Self.oldCarrier))]), key: secret, .hs256)
        await expectOIDCError(.algorithmNotAllowed) { try await v.validate(hs, audience: .anyAudience) }
    }

    @Test("only the algorithms the issuer advertises are accepted")
    func advertisedAlgorithms() async throws {
        let onlyES = ScriptedTransport()
        onlyES.json(
            Self.oldCarrier + "/.well-known/openid-configuration",
            DiscoveryTests.document(issuer: Self.oldCarrier).replacingOccurrences(of: #"["RS256","ES256","none"]"#, with: #"["ES256"]"#))
        onlyES.json(Self.oldCarrier + "/jwks", F.jwks([try F.publicJWK("p256", kid: "old-1"), try F.publicJWK("rsa2048", kid: "old-rsa")]))
        let v = ForeignTokenValidator(trustedIssuers: [Self.oldCarrier], transport: onlyES, clock: clock.now)
        _ = try await v.validate(try portToken(), audience: .anyAudience)
        await expectOIDCError(.algorithmNotAllowed) { try await v.validate(try portToken(kid: "old-rsa", key: "rsa2048", alg: .rs256), audience: .anyAudience) }
    }

    @Test("offline mode with a given JWK Set")
    func offline() async throws {
        let set = try JWKSet(json: F.jwks([F.publicJWK("p256", kid: "old-1")]))
        let v = ForeignTokenValidator(trustedKeys: [Self.oldCarrier: .keySet(set)], clock: clock.now)
        let verified = try await v.validate(try portToken(), audience: .contains(Self.newCarrier))
        #expect(verified.subject == "old-subscriber-9")
        await expectOIDCError(.invalidSignature) { try await v.validate(F.tamper(try portToken()), audience: .anyAudience) }
    }
}

@Suite("ForeignTokenValidator from key documents")
struct ForeignTokenValidatorDocumentsTests {
    @Test("a JWK Set or a single JWK per issuer; anything else is a typed error")
    func documents() async throws {
        let clock = TestClock()
        let token = try F.sign(F.claims([("iss", "https://old-carrier.example")]), key: F.privateKey("p256", kid: "old-1"), .es256)
        let single = try ForeignTokenValidator(trustedKeyDocuments: ["https://old-carrier.example": F.publicJWK("p256", kid: "old-1")], clock: clock.now)
        _ = try await single.validate(token, audience: .anyAudience)
        let set = try ForeignTokenValidator(trustedKeyDocuments: ["https://old-carrier.example": F.jwks([F.publicJWK("p256", kid: "old-1")])], clock: clock.now)
        _ = try await set.validate(token, audience: .anyAudience)
        await expectOIDCError(.jwksInvalidDocument) { try ForeignTokenValidator(trustedKeyDocuments: ["https://x.example": "[1,2]"]) }
    }
}
