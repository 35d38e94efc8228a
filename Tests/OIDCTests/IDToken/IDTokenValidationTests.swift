import Foundation
import JOSE
import Testing

@testable import OIDC

typealias F = IDTokenFixtures

/// One rule broken at a time: claim changes and request expectations, and the code expected.
struct BrokenRule: Sendable, CustomTestStringConvertible {
    let name: String
    let changes: [(String, JSONValue?)]
    let expectations: IDTokenExpectations
    let code: OIDCError.Code
    init(_ name: String, _ changes: [(String, JSONValue?)], _ expectations: IDTokenExpectations, _ code: OIDCError.Code) {
        self.name = name
        self.changes = changes
        self.expectations = expectations
        self.code = code
    }
    init(_ name: String, _ changes: [(String, JSONValue?)], _ code: OIDCError.Code) {
        self.init(name, changes, IDTokenExpectations(nonce: .noNonceSent), code)
    }
    var testDescription: String { name }
}

@Suite("ID Token validation (OIDC Core §3.1.3.7, §3.2.2.11, §3.3.2.12)")
struct IDTokenValidationTests {
    let rsa: JWK
    let keySet: JWKSet
    let clock = TestClock()

    init() throws {
        rsa = try F.privateKey("rsa2048", kid: "k1")
        keySet = try JWKSet(json: F.jwks([F.publicJWK("rsa2048", kid: "k1")]))
    }

    func validator(algorithms: Set<JWSAlgorithm>? = nil, secret: String? = nil, set: JWKSet? = nil) -> IDTokenValidator {
        IDTokenValidator(configuration: F.config(clock: clock, algorithms: algorithms, secret: secret), keys: .keySet(set ?? keySet))
    }

    static let t0 = Int64(IDTokenFixtures.start.timeIntervalSince1970)
    static let nonce = "n-0S6_WzA2Mj"

    @Test("a valid RS256 token passes and its claims are typed")
    func valid() async throws {
        let token = try F.sign(F.claims([("nonce", .string(Self.nonce)), ("email", "a@example.com"), ("email_verified", true)]), key: rsa, .rs256)
        let idToken = try await validator().validate(token, expecting: IDTokenExpectations(nonce: .sent(Self.nonce)))
        #expect(idToken.subject == "alice")
        #expect(idToken.issuer == F.issuer)
        #expect(idToken.audience == [F.clientID])
        #expect(idToken.email == "a@example.com")
        #expect(idToken.emailVerified == true)
        #expect(idToken.issuedAt == F.start)
    }

    static let broken: [BrokenRule] = [
        BrokenRule("issuer mismatch", [("iss", "https://evil.example.com")], .issuerMismatch),
        BrokenRule("issuer missing", [("iss", nil)], .missingIssuer),
        BrokenRule("issuer with a trailing slash is not the issuer", [("iss", .string(F.issuer + "/"))], .issuerMismatch),
        BrokenRule("sub missing", [("sub", nil)], .missingSubject),
        BrokenRule("sub empty", [("sub", "")], .missingSubject),
        BrokenRule("aud mismatch", [("aud", "someone-else")], .audienceMismatch),
        BrokenRule("aud array without the client", [("aud", ["a", "b"]), ("azp", .string(F.clientID))], .audienceMismatch),
        BrokenRule("aud missing", [("aud", nil)], .missingAudience),
        BrokenRule("several audiences and no azp", [("aud", [.string(F.clientID), "other"])], .missingAuthorizedParty),
        BrokenRule("azp is another client", [("azp", "other")], .authorizedPartyMismatch),
        BrokenRule("expired beyond the leeway", [("exp", .integer(t0 - 61))], .expired),
        BrokenRule("exp missing", [("exp", nil)], .missingExpiry),
        BrokenRule("iat missing", [("iat", nil)], .missingIssuedAt),
        BrokenRule("iat in the future beyond the leeway", [("iat", .integer(t0 + 120))], .issuedInFuture),
        BrokenRule("nbf in the future beyond the leeway", [("nbf", .integer(t0 + 120))], .notYetValid),
        BrokenRule("nonce mismatch", [("nonce", "other-nonce")], IDTokenExpectations(nonce: .sent(nonce)), .nonceMismatch),
        BrokenRule("nonce missing when one was sent", [], IDTokenExpectations(nonce: .sent(nonce)), .missingNonce),
        BrokenRule("implicit flow without a nonce in the request", [], IDTokenExpectations(flow: .implicit(), nonce: .noNonceSent), .nonceRequired),
        BrokenRule("max_age sent and auth_time missing", [], IDTokenExpectations(nonce: .noNonceSent, maxAge: 300), .missingAuthTime),
        BrokenRule(
            "auth_time older than max_age", [("auth_time", .integer(t0 - 1000))], IDTokenExpectations(nonce: .noNonceSent, maxAge: 300), .authenticationTooOld),
        BrokenRule("auth_time essential and missing", [], IDTokenExpectations(nonce: .noNonceSent, authTimeEssential: true), .missingAuthTime),
        BrokenRule(
            "acr essential and missing", [], IDTokenExpectations(nonce: .noNonceSent, acrValues: ["urn:mace:incommon:iap:silver"], acrEssential: true),
            .missingACR),
        BrokenRule(
            "acr essential and not requested", [("acr", "0")],
            IDTokenExpectations(nonce: .noNonceSent, acrValues: ["urn:mace:incommon:iap:silver"], acrEssential: true), .acrNotSatisfied),
        BrokenRule("a registered claim of the wrong type", [("email_verified", "true")], .claimTypeMismatch),
        BrokenRule("aud of the wrong type", [("aud", 42)], .claimTypeMismatch),
    ]

    @Test("each rule broken alone fails with its own code", arguments: broken)
    func brokenRule(_ rule: BrokenRule) async throws {
        let token = try F.sign(F.claims(rule.changes), key: rsa, .rs256)
        await expectOIDCError(rule.code) { try await validator().validate(token, expecting: rule.expectations) }
    }

    @Test("within the leeway: exp just passed, iat and nbf slightly ahead are accepted")
    func leeway() async throws {
        let token = try F.sign(F.claims([("exp", .integer(Self.t0 - 30)), ("iat", .integer(Self.t0 + 30)), ("nbf", .integer(Self.t0 + 30))]), key: rsa, .rs256)
        _ = try await validator().validate(token, expecting: IDTokenExpectations(nonce: .noNonceSent))
    }

    @Test("several audiences with azp equal to the client id are accepted")
    func multipleAudiences() async throws {
        let token = try F.sign(F.claims([("aud", [.string(F.clientID), "other"]), ("azp", .string(F.clientID))]), key: rsa, .rs256)
        let idToken = try await validator().validate(token, expecting: IDTokenExpectations(nonce: .noNonceSent))
        #expect(idToken.audience == [F.clientID, "other"])
    }

    @Test("max_age, essential acr and auth_time satisfied are accepted")
    func authTimeAndACR() async throws {
        let token = try F.sign(F.claims([("auth_time", .integer(Self.t0 - 100)), ("acr", "silver")]), key: rsa, .rs256)
        _ = try await validator().validate(
            token, expecting: IDTokenExpectations(nonce: .noNonceSent, maxAge: 300, acrValues: ["gold", "silver"], acrEssential: true))
    }

    @Test("maximumTokenAge rejects an old iat")
    func maximumTokenAge() async throws {
        var config = F.config(clock: clock)
        config.maximumTokenAge = 60
        let token = try F.sign(F.claims([("iat", .integer(Self.t0 - 500)), ("exp", .integer(Self.t0 + 500))]), key: rsa, .rs256)
        await expectOIDCError(.issuedTooLongAgo) {
            try await IDTokenValidator(configuration: config, keys: .keySet(keySet)).validate(token, expecting: IDTokenExpectations(nonce: .noNonceSent))
        }
    }

    // MARK: signatures and keys

    @Test("alg none is rejected")
    func algNone() async throws {
        await expectOIDCError(.unsecuredToken) { try await validator().validate(F.unsecured(F.claims()), expecting: IDTokenExpectations(nonce: .noNonceSent)) }
        await expectOIDCError(.unsecuredToken) {
            try await validator(algorithms: Set(JWSAlgorithm.allCases)).validate(F.unsecured(F.claims()), expecting: IDTokenExpectations(nonce: .noNonceSent))
        }
    }

    @Test("bad RS256 signature")
    func badRS256() async throws {
        let token = F.tamper(try F.sign(F.claims(), key: rsa, .rs256))
        await expectOIDCError(.invalidSignature) { try await validator().validate(token, expecting: IDTokenExpectations(nonce: .noNonceSent)) }
    }

    @Test("bad ES256 signature; a good one passes when ES256 is allowed")
    func es256() async throws {
        let key = try F.privateKey("p256", kid: "ec1")
        let set = try JWKSet(json: F.jwks([F.publicJWK("p256", kid: "ec1")]))
        let token = try F.sign(F.claims(), key: key, .es256)
        _ = try await validator(algorithms: [.es256], set: set).validate(token, expecting: IDTokenExpectations(nonce: .noNonceSent))
        await expectOIDCError(.invalidSignature) {
            try await validator(algorithms: [.es256], set: set).validate(F.tamper(token), expecting: IDTokenExpectations(nonce: .noNonceSent))
        }
    }

    @Test("HS256 verifies only with the client secret")
    func hs256() async throws {
        let secret = "a-client-secret-of-at-least-32-bytes-long!"
        let key = JWK(symmetricKey: Array(secret.utf8))
        let token = try F.sign(F.claims(), key: key, .hs256)
        _ = try await validator(algorithms: [.hs256], secret: secret).validate(token, expecting: IDTokenExpectations(nonce: .noNonceSent))
        await expectOIDCError(.invalidSignature) {
            try await validator(algorithms: [.hs256], secret: secret).validate(F.tamper(token), expecting: IDTokenExpectations(nonce: .noNonceSent))
        }
        await expectOIDCError(.invalidSignature) {
            try await validator(algorithms: [.hs256], secret: secret + "x").validate(token, expecting: IDTokenExpectations(nonce: .noNonceSent))
        }
        await expectOIDCError(.clientSecretRequired) {
            try await validator(algorithms: [.hs256]).validate(token, expecting: IDTokenExpectations(nonce: .noNonceSent))
        }
        // Default algorithms (RS256 when the provider's are unknown) refuse HS256.
        await expectOIDCError(.algorithmNotAllowed) { try await validator(secret: secret).validate(token, expecting: IDTokenExpectations(nonce: .noNonceSent)) }
    }

    @Test("the provider's advertised algorithms are the default allow-list; RS256 when unknown")
    func defaultAlgorithms() async throws {
        let key = try F.privateKey("p256", kid: "ec1")
        let set = try JWKSet(json: F.jwks([F.publicJWK("p256", kid: "ec1")]))
        let token = try F.sign(F.claims(), key: key, .es256)
        await expectOIDCError(.algorithmNotAllowed) { try await validator(set: set).validate(token, expecting: IDTokenExpectations(nonce: .noNonceSent)) }
        var config = F.config(clock: clock)
        config.providerAlgorithms = [.es256, .rs256]
        _ = try await IDTokenValidator(configuration: config, keys: .keySet(set)).validate(token, expecting: IDTokenExpectations(nonce: .noNonceSent))
        // An algorithm the provider allows but the key does not admit.
        let rsToken = try F.sign(F.claims(), key: rsa, .rs256)
        let mixed = try JWKSet(json: F.jwks([F.publicJWK("p256", kid: "k1")]))
        await expectOIDCError(.algorithmNotAllowed) {
            try await IDTokenValidator(configuration: config, keys: .keySet(mixed)).validate(rsToken, expecting: IDTokenExpectations(nonce: .noNonceSent))
        }
    }

    @Test("kid absent: accepted with one fitting key, rejected with several")
    func kidAbsent() async throws {
        let noKid = try F.privateKey("rsa2048", kid: nil)
        let token = try F.sign(F.claims(), key: noKid, .rs256)
        let one = try JWKSet(json: F.jwks([F.publicJWK("rsa2048", kid: "k1"), F.publicJWK("p256", kid: "ec1")]))
        _ = try await validator(set: one).validate(token, expecting: IDTokenExpectations(nonce: .noNonceSent))
        let several = try JWKSet(json: F.jwks([F.publicJWK("rsa2048", kid: "k1"), F.publicJWK("rsa2048", kid: "k2")]))
        await expectOIDCError(.ambiguousSigningKey) { try await validator(set: several).validate(token, expecting: IDTokenExpectations(nonce: .noNonceSent)) }
    }

    @Test("a kid not in the set")
    func unknownKid() async throws {
        let token = try F.sign(F.claims(), key: F.privateKey("rsa2048", kid: "nope"), .rs256)
        await expectOIDCError(.signingKeyNotFound) { try await validator().validate(token, expecting: IDTokenExpectations(nonce: .noNonceSent)) }
    }

    @Test("a malformed token")
    func malformed() async throws {
        await expectOIDCError(.malformedIDToken) { try await validator().validate("not.a-token", expecting: IDTokenExpectations(nonce: .noNonceSent)) }
        await expectOIDCError(.malformedIDToken) {
            try await validator().validate(
                Base64URL.encode(#"{"alg":"RS256"}"#) + "." + Base64URL.encode("[1]") + ".AA", expecting: IDTokenExpectations(nonce: .noNonceSent))
        }
    }

    @Test("insecureSkipSignatureCheck is explicit and does skip only the signature")
    func skipSignature() async throws {
        var config = F.config(clock: clock)
        config.insecureSkipSignatureCheck = true
        let token = F.tamper(try F.sign(F.claims(), key: rsa, .rs256))
        _ = try await IDTokenValidator(configuration: config, keys: .keySet(keySet)).validate(token, expecting: IDTokenExpectations(nonce: .noNonceSent))
        let wrongIssuer = F.tamper(try F.sign(F.claims([("iss", "https://x.example")]), key: rsa, .rs256))
        await expectOIDCError(.issuerMismatch) {
            try await IDTokenValidator(configuration: config, keys: .keySet(keySet)).validate(wrongIssuer, expecting: IDTokenExpectations(nonce: .noNonceSent))
        }
    }

    // MARK: at_hash / c_hash

    @Test("at_hash and c_hash of the OpenID Connect Core examples (RS256)")
    func hashVectors() {
        #expect(TokenHash.compute("jHkWEdUXMU1BwAsC4vtUsZwnNvTIxEl0z9K3vx5KF0Y", algorithm: .rs256) == "77QmUPtjPfzWtF2AnpK9RQ")
        #expect(TokenHash.compute("Qcb0Orv1zh30vL1MPRsbm-diHiMwcLyZvn1arpZv-Jxf_11jnpEX3Tgfvk", algorithm: .rs256) == "LDktKdoQak3Pk0cnXxCltA")
    }

    @Test("the hash follows alg: SHA-384 for ES384/RS384, SHA-512 for EdDSA")
    func hashAlgorithms() {
        let value = "access-token-value"
        #expect(TokenHash.compute(value, algorithm: .es384) == Base64URL.encode(DigestAlgorithm.sha384.hash(Array(value.utf8)).prefix(24)))
        #expect(TokenHash.compute(value, algorithm: .eddsa) == Base64URL.encode(DigestAlgorithm.sha512.hash(Array(value.utf8)).prefix(32)))
        #expect(TokenHash.compute(value, algorithm: .ed25519) == TokenHash.compute(value, algorithm: .eddsa))
        #expect(TokenHash.digest(for: .ps256) == .sha256)
    }

    static let accessToken = "SlAV32hkKG"
    static let code = "Qcb0Orv1zh30vL1MPRsbm-diHiMwcLyZvn1arpZv-Jxf_11jnpEX3Tgfvk"

    func hashed(_ changes: [(String, JSONValue?)]) throws -> String {
        try F.sign(F.claims([("nonce", .string(Self.nonce))] + changes), key: rsa, .rs256)
    }

    @Test("implicit id_token token: at_hash required and checked")
    func implicitAtHash() async throws {
        let expect = IDTokenExpectations(flow: .implicit(accessToken: Self.accessToken), nonce: .sent(Self.nonce))
        let good = TokenHash.compute(Self.accessToken, algorithm: .rs256)
        _ = try await validator().validate(try hashed([("at_hash", .string(good))]), expecting: expect)
        await expectOIDCError(.missingAccessTokenHash) { try await validator().validate(try hashed([]), expecting: expect) }
        await expectOIDCError(.accessTokenHashMismatch) {
            try await validator().validate(try hashed([("at_hash", "AAAAAAAAAAAAAAAAAAAAAA")]), expecting: expect)
        }
        // implicit id_token (no access token): no at_hash needed
        _ = try await validator().validate(try hashed([]), expecting: IDTokenExpectations(flow: .implicit(), nonce: .sent(Self.nonce)))
    }

    @Test("hybrid code id_token: c_hash required and checked")
    func hybridCHash() async throws {
        let expect = IDTokenExpectations(flow: .hybrid(code: Self.code), nonce: .sent(Self.nonce))
        let good = TokenHash.compute(Self.code, algorithm: .rs256)
        _ = try await validator().validate(try hashed([("c_hash", .string(good))]), expecting: expect)
        await expectOIDCError(.missingCodeHash) { try await validator().validate(try hashed([]), expecting: expect) }
        await expectOIDCError(.codeHashMismatch) { try await validator().validate(try hashed([("c_hash", "LDktKdoQak3Pk0cnXxCltB")]), expecting: expect) }
    }

    @Test("hybrid code id_token token: c_hash and at_hash both required")
    func hybridBoth() async throws {
        let expect = IDTokenExpectations(flow: .hybrid(code: Self.code, accessToken: Self.accessToken), nonce: .sent(Self.nonce))
        let c = JSONValue.string(TokenHash.compute(Self.code, algorithm: .rs256))
        let at = JSONValue.string(TokenHash.compute(Self.accessToken, algorithm: .rs256))
        _ = try await validator().validate(try hashed([("c_hash", c), ("at_hash", at)]), expecting: expect)
        await expectOIDCError(.missingAccessTokenHash) { try await validator().validate(try hashed([("c_hash", c)]), expecting: expect) }
        await expectOIDCError(.accessTokenHashMismatch) { try await validator().validate(try hashed([("c_hash", c), ("at_hash", c)]), expecting: expect) }
        await expectOIDCError(.missingCodeHash) { try await validator().validate(try hashed([("at_hash", at)]), expecting: expect) }
        await expectOIDCError(.codeHashMismatch) { try await validator().validate(try hashed([("c_hash", at), ("at_hash", at)]), expecting: expect) }
        await expectOIDCError(.nonceRequired) {
            try await validator().validate(
                try hashed([("c_hash", c), ("at_hash", at)]),
                expecting: IDTokenExpectations(flow: .hybrid(code: Self.code, accessToken: Self.accessToken), nonce: .noNonceSent))
        }
    }

    @Test("token endpoint: at_hash optional, but checked when present")
    func tokenEndpointAtHash() async throws {
        let expect = IDTokenExpectations(flow: .tokenEndpoint(accessToken: Self.accessToken), nonce: .noNonceSent)
        _ = try await validator().validate(try F.sign(F.claims(), key: rsa, .rs256), expecting: expect)
        await expectOIDCError(.accessTokenHashMismatch) {
            try await validator().validate(try F.sign(F.claims([("at_hash", "AAAAAAAAAAAAAAAAAAAAAA")]), key: rsa, .rs256), expecting: expect)
        }
    }

    @Test("EdDSA at_hash uses SHA-512")
    func eddsaAtHash() async throws {
        let key = try F.privateKey("ed25519", kid: "ed")
        let set = try JWKSet(json: F.jwks([F.publicJWK("ed25519", kid: "ed")]))
        let at = TokenHash.compute(Self.accessToken, algorithm: .eddsa)
        let token = try F.sign(F.claims([("nonce", .string(Self.nonce)), ("at_hash", .string(at))]), key: key, .eddsa)
        _ = try await validator(algorithms: [.eddsa], set: set)
            .validate(token, expecting: IDTokenExpectations(flow: .implicit(accessToken: Self.accessToken), nonce: .sent(Self.nonce)))
        let sha256Half = TokenHash.compute(Self.accessToken, algorithm: .rs256)
        let wrong = try F.sign(F.claims([("nonce", .string(Self.nonce)), ("at_hash", .string(sha256Half))]), key: key, .eddsa)
        await expectOIDCError(.accessTokenHashMismatch) {
            try await validator(algorithms: [.eddsa], set: set)
                .validate(wrong, expecting: IDTokenExpectations(flow: .implicit(accessToken: Self.accessToken), nonce: .sent(Self.nonce)))
        }
    }

    @Test("errors never carry token contents")
    func noSecretsInErrors() async throws {
        let token = try F.sign(F.claims([("iss", "https://secret-issuer.example"), ("nonce", "secret-nonce-value")]), key: rsa, .rs256)
        do {
            _ = try await validator().validate(token, expecting: IDTokenExpectations(nonce: .sent("x")))
        } catch {
            #expect(!"\(error)".contains("secret"))
        }
        do {
            _ = try await validator().validate(
                F.sign(F.claims([("nonce", "secret-nonce-value")]), key: rsa, .rs256), expecting: IDTokenExpectations(nonce: .sent("x")))
        } catch {
            #expect(!"\(error)".contains("secret"))
            #expect(F.code(of: error) == "nonce_mismatch")
        }
    }
}

@Suite("Validator configuration")
struct IDTokenValidatorConfigurationTests {
    @Test("description hides the client secret and shouts the insecure flags")
    func description() {
        var config = IDTokenFixtures.config(secret: "super-secret-value")
        #expect(!config.description.contains("super-secret-value"))
        #expect(config.description.contains("clientSecret: set"))
        config.insecureSkipSignatureCheck = true
        #expect(config.description.contains("INSECURE-skip-signature"))
        #expect(IDTokenFixtures.config().effectiveAlgorithms == [.rs256])
    }

    @Test("insecureSkipIssuerCheck, insecureSkipClientIDCheck and insecureSkipExpiryCheck each skip one rule")
    func skips() async throws {
        let rsa = try F.privateKey("rsa2048", kid: "k1")
        let set = try JWKSet(json: F.jwks([F.publicJWK("rsa2048", kid: "k1")]))
        var config = IDTokenFixtures.config()
        config.insecureSkipIssuerCheck = true
        _ = try await IDTokenValidator(configuration: config, keys: .keySet(set)).validate(
            F.sign(F.claims([("iss", "https://x.example")]), key: rsa, .rs256), expecting: IDTokenExpectations(nonce: .noNonceSent))
        config = IDTokenFixtures.config()
        config.insecureSkipClientIDCheck = true
        _ = try await IDTokenValidator(configuration: config, keys: .keySet(set)).validate(
            F.sign(F.claims([("aud", "other")]), key: rsa, .rs256), expecting: IDTokenExpectations(nonce: .noNonceSent))
        config = IDTokenFixtures.config()
        config.insecureSkipExpiryCheck = true
        _ = try await IDTokenValidator(configuration: config, keys: .keySet(set)).validate(
            F.sign(F.claims([("exp", 1)]), key: rsa, .rs256), expecting: IDTokenExpectations(nonce: .noNonceSent))
    }
}
