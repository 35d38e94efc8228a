import Foundation
import JOSE
import Testing

/// Key binding (RFC 9901 §4.3, §7.3): each rule refused on its own.
@Suite("SD-JWT: key binding")
struct SDJWTKeyBindingTests {
    typealias F = SDJWTFixture
    static let requirement = SDJWTKeyBinding(audience: "https://verifier.example", nonce: "n-0S6_WzA2Mj")

    func issued(holder: JWK? = F.holder) throws -> SDJWT {
        try SDJWT.issue(
            claims: ["iss": "https://issuer.example", "given_name": "Erika", "family_name": "Mustermann"],
            disclosable: ["/given_name", "/family_name"], key: F.issuer, algorithm: .es256, holderKey: holder?.publicKey)
    }

    func code(_ token: SDJWT, policy: SDJWTVerificationPolicy = F.policy(keyBinding: requirement)) -> JOSEError.Code? {
        F.code { _ = try token.verify(key: F.issuer.publicKey, policy: policy) }
    }

    /// A KB-JWT made by hand, to vary each member.
    func kb(_ token: SDJWT, header: JSONObject = ["typ": "kb+jwt"], claims: JSONObject? = nil, key: JWK = F.holder) throws -> SDJWT {
        let body =
            claims ?? [
                "iat": .integer(Int64(F.now.timeIntervalSince1970)), "aud": "https://verifier.example", "nonce": "n-0S6_WzA2Mj",
                "sd_hash": .string(SDJWTHashAlgorithm.sha256.digest(of: token.withoutKeyBinding)),
            ]
        return SDJWT(
            issuerSignedJWT: token.issuerSignedJWT, disclosures: token.disclosures,
            keyBindingJWT: try JWT.sign(body, key: key, algorithm: .es256, header: header))
    }

    @Test("a presentation with a KB-JWT from the holder's key verifies; the KB-JWT's claims are returned")
    func bound() throws {
        let presented = try issued().presenting(["/given_name"]).addingKeyBinding(
            key: F.holder, algorithm: .es256, audience: "https://verifier.example", nonce: "n-0S6_WzA2Mj", issuedAt: F.now)
        let verified = try presented.verify(key: F.issuer.publicKey, policy: F.policy(keyBinding: Self.requirement))
        #expect(verified.claims.object["given_name"] == "Erika")
        #expect(verified.claims.object["family_name"] == nil)
        #expect(verified.claims.object["cnf"]?.objectValue?["jwk"] == .object(F.holder.publicJWK))
        #expect(verified.keyBinding?.header.type == "kb+jwt")
        #expect(try verified.keyBinding?.claims.string("nonce") == "n-0S6_WzA2Mj")
        #expect(code(try kb(try issued())) == nil)
    }

    @Test("the holder key kept per thread never answers for another cnf.jwk: a KB-JWT by the previous holder is refused")
    func holderKeyPerCredential() throws {
        let other = try JWK.generate(.ec(.p256))
        #expect(code(try kb(try issued())) == nil)
        #expect(code(try kb(try issued(holder: other))) == .invalidSignature)
        #expect(code(try kb(try issued(holder: other), key: other)) == nil)
        #expect(code(try kb(try issued())) == nil)
        #expect(code(try kb(try issued(), key: other)) == .invalidSignature)
    }

    @Test("required key binding: no KB-JWT, or no cnf.jwk, is refused")
    func missing() throws {
        #expect(code(try issued()) == .sdKeyBindingRequired)
        #expect(code(try kb(try issued(holder: nil))) == .sdHolderKeyMissing)
    }

    @Test("typ other than kb+jwt, another key, alg none are refused")
    func header() throws {
        #expect(code(try kb(try issued(), header: ["typ": "JWT"])) == .invalidHeader)
        #expect(code(try kb(try issued(), header: [:])) == .invalidHeader)
        #expect(code(try kb(try issued(), key: try JWK.generate(.ec(.p256)))) == .invalidSignature)
        let token = try kb(try issued())
        let kbParts = (token.keyBindingJWT ?? "").split(separator: ".")
        let none = Base64URL.encode("{\"alg\":\"none\",\"typ\":\"kb+jwt\"}") + "." + kbParts[1] + "."
        #expect(code(SDJWT(issuerSignedJWT: token.issuerSignedJWT, disclosures: token.disclosures, keyBindingJWT: none)) != nil)
    }

    @Test("aud, nonce, sd_hash and iat are each checked")
    func claims() throws {
        let token = try issued()
        let hash = JSONValue.string(SDJWTHashAlgorithm.sha256.digest(of: token.withoutKeyBinding))
        let iat = JSONValue.integer(Int64(F.now.timeIntervalSince1970))
        let good: JSONObject = ["iat": iat, "aud": "https://verifier.example", "nonce": "n-0S6_WzA2Mj", "sd_hash": hash]
        func with(_ name: String, _ value: JSONValue?) -> JSONObject {
            var claims = good
            claims[name] = value
            return claims
        }
        #expect(code(try kb(token, claims: with("aud", "https://other.example"))) == .audienceMismatch)
        #expect(code(try kb(token, claims: with("nonce", "replayed"))) == .claimMismatch)
        #expect(code(try kb(token, claims: with("nonce", nil))) == .missingClaim)
        #expect(code(try kb(token, claims: with("sd_hash", "AAAA"))) == .sdHashMismatch)
        #expect(code(try kb(token, claims: with("sd_hash", nil))) == .missingClaim)
        #expect(code(try kb(token, claims: with("iat", nil))) == .missingClaim)
        #expect(code(try kb(token, claims: with("iat", .integer(Int64(F.now.timeIntervalSince1970) - 3600)))) == .sdKeyBindingStale)
        #expect(code(try kb(token, claims: with("iat", .integer(Int64(F.now.timeIntervalSince1970) + 3600)))) == .issuedInFuture)
        // Within the window set by the caller.
        var wide = F.policy(keyBinding: SDJWTKeyBinding(audience: "https://verifier.example", nonce: "n-0S6_WzA2Mj", maximumAge: 7200))
        #expect(code(try kb(token, claims: with("iat", .integer(Int64(F.now.timeIntervalSince1970) - 3600))), policy: wide) == nil)
        wide.keyBinding = nil
        #expect(code(try kb(token, claims: with("nonce", "replayed")), policy: wide) == nil)
    }

    @Test("sd_hash covers the disclosures: dropping or adding one after binding is refused")
    func hashCoversDisclosures() throws {
        let full = try issued()
        let bound = try full.presenting(["/given_name"]).addingKeyBinding(
            key: F.holder, algorithm: .es256, audience: "https://verifier.example", nonce: "n-0S6_WzA2Mj", issuedAt: F.now)
        let widened = SDJWT(issuerSignedJWT: bound.issuerSignedJWT, disclosures: full.disclosures, keyBindingJWT: bound.keyBindingJWT)
        #expect(code(widened) == .sdHashMismatch)
        let narrowed = SDJWT(issuerSignedJWT: bound.issuerSignedJWT, disclosures: [], keyBindingJWT: bound.keyBindingJWT)
        #expect(code(narrowed) == .sdHashMismatch)
    }
}
