import Foundation
import Testing

@testable import JOSE

/// Tokens signed by joserfc (Python), produced by Fixtures/interop/generate.py
/// and committed, verified by this library.
@Suite("Interop: tokens from joserfc verify here")
struct PythonInteropTests {
    static let url = Fixtures.directory.appendingPathComponent("interop/interop_tokens.json")

    static func fixture() throws -> JSONObject { try Fixtures.object(url) }

    static var count: Int { (try? fixture().array("tokens").count) ?? 0 }

    static let audience = "s6BhdRkqt3"

    @Test("the fixture covers every algorithm, from the pinned generator")
    func coverage() throws {
        let root = try Self.fixture()
        #expect(root.string("generator") == "joserfc 1.6.5")
        let algorithms = Set(root.array("tokens").compactMap { $0.objectValue?.string("alg") })
        // Every algorithm but ML-DSA, which joserfc 1.6.5 predates (MLDSATests has vectors of its own).
        #expect(algorithms == Set(JWSAlgorithm.allCases.filter { $0.family != .mlDSA }.map(\.rawValue)))
    }

    @Test("each joserfc token verifies and its claims validate", arguments: 0..<14)
    func token(_ index: Int) throws {
        let root = try Self.fixture()
        let entries = root.array("tokens").compactMap(\.objectValue)
        try #require(index < entries.count)
        let entry = entries[index]
        let token = try #require(entry.string("token"))
        let algorithm = try JWSAlgorithm(headerValue: try #require(entry.string("alg")))
        let restricted = try TestKeys.jwk(try #require(entry.string("key")))
        var key = restricted
        key.algorithm = nil

        let claims = try #require(root.object("claims"))
        let iat = TimeInterval(try #require(claims.int("iat")))
        let validation = JWTValidationPolicy(
            clock: { Date(timeIntervalSince1970: iat + 10) }, issuer: "https://accounts.example.com",
            audience: Self.audience, requiredClaims: ["sub", "nonce", "auth_time"], requiresExpiration: true)
        let jwt = try JWT.verifyIgnoringIssuerAndAudience(token, key: key, validation: validation)
        #expect(jwt.header.algorithmName == algorithm.rawValue)
        #expect(jwt.header.keyID == entry.string("kid"))
        #expect(jwt.claims.object == claims)
        #expect(try jwt.claims.claim("address", as: [String: String].self)?["locality"] == "Tromsø")
        #expect(try jwt.claims.audience == ["s6BhdRkqt3", "https://api.example.com"])

        // The key file's own alg: either it admits this algorithm, or the token is refused for it.
        if restricted.admittedAlgorithms.contains(algorithm) {
            _ = try JWT.verifyIgnoringIssuerAndAudience(token, key: restricted, validation: validation)
        } else {
            expectCode(.keyAlgorithmMismatch) { _ = try JWT.verifyIgnoringIssuerAndAudience(token, key: restricted, validation: validation) }
        }
        // Through the provider-style key set (when the key is in it), selected by kid.
        let keys = try JWKSet(json: TestKeys.text("jwks.json"))
        if let inSet = keys.keys(withID: entry.string("kid") ?? "").first, inSet.admittedAlgorithms.contains(algorithm) {
            #expect(try JWT.verifyIgnoringIssuerAndAudience(token, keys: keys, validation: validation).key.keyID == entry.string("kid"))
        }
        // After the token's lifetime plus leeway, it is expired.
        var late = validation
        late.clock = { Date(timeIntervalSince1970: iat + 400) }
        expectCode(.expired) { _ = try JWT.verifyIgnoringIssuerAndAudience(token, key: key, validation: late) }
        // A changed payload does not verify.
        var parts = token.split(separator: ".").map(String.init)
        var payload = try Base64URL.decode(parts[1])
        let position = try #require(payload.firstIndex(of: UInt8(ascii: "2")))
        payload[position] = UInt8(ascii: "3")
        parts[1] = Base64URL.encode(payload)
        expectCode(.invalidSignature) { try CompactJWS(parts.joined(separator: ".")).verify(with: key) }
    }
}
