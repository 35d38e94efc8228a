import Foundation
import Testing

@testable import JOSE

@Suite("JWT claim validation with an injected clock")
struct JWTValidationTests {
    static let t0: TimeInterval = 1_700_000_000
    static let leeway: TimeInterval = 60

    static func options(
        at now: TimeInterval, issuer: String? = nil, audience: String? = nil, required: [String] = [],
        requiresExpiration: Bool = false
    ) -> JWTValidationPolicy {
        JWTValidationPolicy(
            clock: { Date(timeIntervalSince1970: now) }, leeway: leeway, issuer: issuer, audience: audience,
            requiredClaims: required, requiresExpiration: requiresExpiration)
    }

    static func claims(_ object: JSONObject) -> JWTClaims { JWTClaims(object) }

    @Test("exp: valid until exp + leeway, expired from then on", arguments: [(-1.0, true), (0, false), (1, false)])
    func expiry(_ offset: TimeInterval, _ valid: Bool) throws {
        let c = Self.claims(["exp": .integer(Int64(Self.t0))])
        let now = Self.t0 + Self.leeway + offset
        if valid { try c.validate(Self.options(at: now)) } else { expectCode(.expired) { try c.validate(Self.options(at: now)) } }
    }

    @Test("nbf: valid from nbf - leeway", arguments: [(-1.0, false), (0, true), (1, true)])
    func notBefore(_ offset: TimeInterval, _ valid: Bool) throws {
        let c = Self.claims(["nbf": .integer(Int64(Self.t0))])
        let now = Self.t0 - Self.leeway + offset
        if valid { try c.validate(Self.options(at: now)) } else { expectCode(.notYetValid) { try c.validate(Self.options(at: now)) } }
    }

    @Test("iat: at most leeway in the future", arguments: [(-1.0, false), (0, true), (1, true)])
    func issuedAt(_ offset: TimeInterval, _ valid: Bool) throws {
        let c = Self.claims(["iat": .integer(Int64(Self.t0))])
        let now = Self.t0 - Self.leeway + offset
        if valid { try c.validate(Self.options(at: now)) } else { expectCode(.issuedInFuture) { try c.validate(Self.options(at: now)) } }
    }

    @Test("zero leeway: expired exactly at exp")
    func zeroLeeway() throws {
        let c = Self.claims(["exp": .integer(Int64(Self.t0))])
        var options = Self.options(at: Self.t0)
        options.leeway = 0
        expectCode(.expired) { try c.validate(options) }
        options.clock = { Date(timeIntervalSince1970: Self.t0 - 1) }
        try c.validate(options)
    }

    @Test("issuer must match exactly")
    func issuer() throws {
        let c = Self.claims(["iss": "https://issuer.example"])
        try c.validate(Self.options(at: Self.t0, issuer: "https://issuer.example"))
        expectCode(.issuerMismatch) { try c.validate(Self.options(at: Self.t0, issuer: "https://issuer.example/")) }
        expectCode(.issuerMismatch) { try c.validate(Self.options(at: Self.t0, issuer: "https://ISSUER.example")) }
        expectCode(.missingClaim) { try Self.claims([:]).validate(Self.options(at: Self.t0, issuer: "https://issuer.example")) }
        expectCode(.claimTypeMismatch) { try Self.claims(["iss": 1]).validate(Self.options(at: Self.t0, issuer: "x")) }
    }

    @Test("audience must be contained in aud, string or array")
    func audience() throws {
        try Self.claims(["aud": "client"]).validate(Self.options(at: Self.t0, audience: "client"))
        try Self.claims(["aud": ["other", "client"]]).validate(Self.options(at: Self.t0, audience: "client"))
        expectCode(.audienceMismatch) { try Self.claims(["aud": "clients"]).validate(Self.options(at: Self.t0, audience: "client")) }
        expectCode(.audienceMismatch) { try Self.claims(["aud": ["a", "b"]]).validate(Self.options(at: Self.t0, audience: "client")) }
        expectCode(.missingClaim) { try Self.claims([:]).validate(Self.options(at: Self.t0, audience: "client")) }
    }

    @Test("required claims and required exp")
    func required() throws {
        let c = Self.claims(["sub": "s", "nonce": "n"])
        try c.validate(Self.options(at: Self.t0, required: ["sub", "nonce"]))
        do {
            try c.validate(Self.options(at: Self.t0, required: ["sub", "auth_time"]))
            Issue.record("expected missingClaim")
        } catch let error as JOSEError {
            #expect(error.code == .missingClaim)
            #expect(error.member == "auth_time")
        }
        expectCode(.missingClaim) { try c.validate(Self.options(at: Self.t0, requiresExpiration: true)) }
    }

    @Test("JWT.verify checks the signature, then the claims")
    func endToEnd() throws {
        var key = try TestKeys.pem("p256.pem")
        key.algorithm = nil
        let claims: JSONObject = [
            "iss": "https://issuer.example", "aud": "client", "sub": "s",
            "iat": .integer(Int64(Self.t0)), "exp": .integer(Int64(Self.t0 + 300)),
        ]
        let token = try JWT.sign(claims, key: key, algorithm: .es256)
        let good = Self.options(at: Self.t0 + 10, issuer: "https://issuer.example", audience: "client")
        let jwt = try JWT.verifyIgnoringIssuerAndAudience(token, key: key.publicKey, validation: good)
        #expect(try jwt.claims.subject == "s")
        #expect(jwt.header.type == "JWT")
        expectCode(.expired) { _ = try JWT.verifyIgnoringIssuerAndAudience(token, key: key.publicKey, validation: Self.options(at: Self.t0 + 360)) }
        expectCode(.audienceMismatch) {
            _ = try JWT.verifyIgnoringIssuerAndAudience(token, key: key.publicKey, validation: Self.options(at: Self.t0, audience: "someone-else"))
        }
        let keys = try JWKSet(json: TestKeys.text("jwks.json"))
        #expect(try JWT.verifyIgnoringIssuerAndAudience(token, keys: keys, validation: good).key.keyID == "p256-LrOOpBAi")
        // A bad signature is reported before any claim problem.
        var tampered = Array(token.utf8)
        tampered[tampered.count - 2] = tampered[tampered.count - 2] == UInt8(ascii: "A") ? UInt8(ascii: "B") : UInt8(ascii: "A")
        expectCode(.invalidSignature) {
            _ = try JWT.verifyIgnoringIssuerAndAudience(
                String(decoding: tampered, as: UTF8.self), key: key.publicKey, validation: Self.options(at: Self.t0 + 9999))
        }
    }
}
