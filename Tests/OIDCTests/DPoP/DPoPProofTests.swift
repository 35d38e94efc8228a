import Foundation
import JOSE
import Testing

@testable import OIDC

/// Decodes a compact JWT's header and claims without verifying (tests only).
func decodeJWT(_ token: String) throws -> (header: JSONObject, claims: JSONObject) {
    let jws = try CompactJWS(token)
    return (jws.header.members, try JSONParser.parseObject(jws.payload, what: "claims"))
}

@Suite("DPoP proofs (RFC 9449 §4.2)")
struct DPoPProofTests {
    static let now = Date(timeIntervalSince1970: 1_800_000_000)

    @Test(
        "header: typ dpop+jwt, alg of the key, jwk with the public members only; the proof verifies with that jwk",
        arguments: [JWK.GenerationSpec.ec(.p256), .ec(.p384), .ed25519, .rsa(bits: 2048)])
    func header(_ spec: JWK.GenerationSpec) throws {
        let key = try DPoPKey.generate(spec)
        let proof = try key.proof(method: "POST", url: URL(string: "https://as.example/token")!, now: Self.now)
        let (header, _) = try decodeJWT(proof)
        #expect(header["typ"] == "dpop+jwt")
        #expect(header["alg"]?.stringValue == key.algorithm.rawValue)
        let jwk = try #require(header["jwk"]?.objectValue)
        for member in ["d", "p", "q", "dp", "dq", "qi", "k", "kid", "use", "key_ops", "alg"] { #expect(jwk[member] == nil, "\(member) in jwk") }
        let embedded = try JWK(jsonObject: jwk)
        #expect(!embedded.isPrivate)
        #expect(embedded.thumbprint() == key.thumbprint)
        try CompactJWS(proof).verify(with: embedded)
        #expect(header.count == 3)
    }

    @Test("default algorithms: ES256 for P-256, ES384 for P-384, EdDSA for Ed25519, PS256 for RSA")
    func algorithms() throws {
        #expect(try DPoPKey.generate(.ec(.p256)).algorithm == .es256)
        #expect(try DPoPKey.generate(.ec(.p384)).algorithm == .es384)
        #expect(try DPoPKey.generate(.ed25519).algorithm == .eddsa)
        #expect(try DPoPKey(key: JWK.generate(.rsa(bits: 2048)), algorithm: .rs256).algorithm == .rs256)
    }

    @Test("claims: htm upper-cased, htu without query and fragment, iat one second behind the clock, 128-bit jti; no ath or nonce unless given")
    func claims() throws {
        let key = try DPoPKey.generate()
        let proof = try key.proof(method: "post", url: URL(string: "https://AS.Example:8443/oauth/token?x=1&y=2#frag")!, now: Self.now)
        let (_, claims) = try decodeJWT(proof)
        #expect(claims["htm"] == "POST")
        #expect(claims["htu"] == "https://as.example:8443/oauth/token")
        #expect(claims["iat"] == .integer(1_799_999_999))  // one second behind the clock (AssertionTimes)
        let jti = try #require(claims["jti"]?.stringValue)
        #expect(try Base64URL.decode(jti).count == 16)
        #expect(claims["ath"] == nil && claims["nonce"] == nil)
        #expect(Set(claims.map(\.name)) == ["jti", "htm", "htu", "iat"])
    }

    @Test(
        "a clock whose second minus one is outside a 64-bit NumericDate: a typed error, never a trap",
        arguments: [-9_223_372_036_854_775_808.0, Double.infinity, -Double.infinity, Double.nan, 1e300])
    func absurdClock(_ seconds: Double) throws {
        let key = try DPoPKey.generate()
        #expect {
            _ = try key.proof(method: "GET", url: URL(string: "https://rs.example/api")!, now: Date(timeIntervalSince1970: seconds))
        } throws: { ($0 as? OIDCError)?.code == .dpopProofFailed }
    }

    @Test("every proof has a different jti")
    func uniqueJTI() throws {
        let key = try DPoPKey.generate(.ed25519)
        var seen = Set<String>()
        for _ in 0..<200 {
            let (_, claims) = try decodeJWT(try key.proof(method: "GET", url: URL(string: "https://rs.example/api")!))
            seen.insert(try #require(claims["jti"]?.stringValue))
        }
        #expect(seen.count == 200)
    }

    @Test("ath is Base64URL(SHA-256(access token)), nonce is copied")
    func athAndNonce() throws {
        let key = try DPoPKey.generate()
        // RFC 9449 §7.1 example: the token and its ath.
        let token = "Kz~8mXK1EalYznwH-LC-1fBAo.4Ljp~zsPE_NeO.gxU"
        #expect(DPoPKey.accessTokenHash(token) == "fUHyO2r2Z3DZ53EsNrWBb0xWXoaNy59IiKCAqksmQEo")
        let proof = try key.proof(
            method: "GET", url: URL(string: "https://resource.example.org/protectedresource")!,
            accessToken: token, nonce: "eyJ7S_zG.eyJH0-Z.HX4w-7v")
        let (_, claims) = try decodeJWT(proof)
        #expect(claims["ath"] == "fUHyO2r2Z3DZ53EsNrWBb0xWXoaNy59IiKCAqksmQEo")
        #expect(claims["nonce"] == "eyJ7S_zG.eyJH0-Z.HX4w-7v")
    }

    @Test("htu: path kept, empty path becomes /, user info dropped; non-http targets refused")
    func htu() throws {
        #expect(try DPoPKey.htu(for: URL(string: "http://127.0.0.1:9461/a/b?c")!) == "http://127.0.0.1:9461/a/b")
        #expect(try DPoPKey.htu(for: URL(string: "https://rs.example")!) == "https://rs.example/")
        #expect(try DPoPKey.htu(for: URL(string: "https://user:pw@rs.example/x")!) == "https://rs.example/x")
        for bad in ["ftp://rs.example/x", "/relative/path", "urn:x:y"] {
            #expect(throws: OIDCError.self) { _ = try DPoPKey.htu(for: URL(string: bad)!) }
        }
    }

    @Test("a public key or an HMAC secret is refused as a DPoP key; a mismatched algorithm too")
    func refusedKeys() throws {
        let key = try JWK.generate(.ec(.p256))
        #expect(throws: OIDCError.self) { _ = try DPoPKey(key: key.publicKey) }
        #expect(throws: OIDCError.self) { _ = try DPoPKey(key: JWK(symmetricKey: Array(repeating: 7, count: 32))) }
        #expect(throws: OIDCError.self) { _ = try DPoPKey(key: key, algorithm: .es384) }
        #expect(throws: OIDCError.self) { _ = try DPoPKey(key: key, algorithm: .hs256) }
    }

    @Test("description and dump show the algorithm and thumbprint, never the private key")
    func redaction() throws {
        let key = try DPoPKey.generate()
        let d = try #require(try key.privateKey.privateJWK()["d"]?.stringValue)
        var dumped = ""
        dump(key, to: &dumped)
        let binding = DPoPBinding(key: key)
        for text in [key.description, String(reflecting: key), dumped, binding.description] {
            #expect(!text.contains(d))
            #expect(text.contains(key.thumbprint))
        }
    }
}
