import Foundation
import JOSE
import OIDC
import Testing

@testable import OIDCResourceServer

/// Issue 36: a proof's `jwk` may not carry an RSA key that makes its signature check costly (JOSE's
/// embedded-key limits: `e` at most 2^32, `n` at most 8192 bits), and a presented token's `cnf.jkt` is
/// compared with the proof key before any signature work.
@Suite("DPoP proof keys: embedded-key limits and jkt before the signature")
struct DPoPProofKeyCostTests {
    static let now = Date(timeIntervalSince1970: 1_800_000_000)
    static let uri = URL(string: "https://rs.example/api/items")!
    static let accessToken = "at-123"

    static func validator() -> DPoPProofValidator {
        DPoPProofValidator(maximumAge: 300, leeway: 60, replays: .cache(InMemoryReplayCache()), clock: { now })
    }

    /// A proof whose header carries `jwk` and is signed by `signer` (not necessarily that key).
    static func proof(jwk: JSONObject, signer: JWK, algorithm: JWSAlgorithm) throws -> String {
        let claims: JSONObject = [
            "jti": "j-1", "htm": "GET", "htu": .string(uri.absoluteString), "iat": .integer(1_800_000_000),
            "ath": .string(DPoPKey.accessTokenHash(accessToken)),
        ]
        return try JWT.sign(claims, key: signer, algorithm: algorithm, header: ["typ": "dpop+jwt", "jwk": .object(jwk)])
    }

    static func refusal(_ proof: String, boundTo binding: DPoPProofValidator.KeyBinding) async -> OIDCError? {
        do {
            _ = try await validator().validate(
                proof, for: .request(method: "GET", uri: uri), nonce: .notRequired,
                presenting: .accessToken(accessToken, boundTo: binding))
            return nil
        } catch {
            return error as? OIDCError
        }
    }

    @Test(
        "an RSA jwk with a 3071-bit public exponent is refused as dpop_proof_jwk / embedded_key_too_costly before any signature check (was checked: ~60x an honest proof)"
    )
    func hugeExponent() async throws {
        let signer = try JWK.generate(.rsa(bits: 2048))
        var exponent = [UInt8](repeating: 0xA5, count: 384)
        exponent[0] = 0x40  // 7 bits in the first byte: 383 * 8 + 7 = 3071 bits
        exponent[383] |= 1
        var jwk = signer.publicJWK
        jwk["e"] = .string(Base64URL.encode(exponent))
        let proof = try Self.proof(jwk: jwk, signer: signer, algorithm: .rs256)
        // Bound to nothing this key could match, and bound to its own thumbprint-to-be: the key rule answers first either way.
        for binding in [DPoPProofValidator.KeyBinding.thumbprint("someone-else"), .notCheckedAtCallersRisk] {
            let error = await Self.refusal(proof, boundTo: binding)
            #expect(error?.code == .dpopProofKey, "\(String(describing: error))")
            #expect(error?.joseError?.code == .embeddedKeyTooCostly && error?.joseError?.member == "e", "\(String(describing: error))")
        }
    }

    @Test("an RSA jwk with a modulus above 8192 bits is refused as embedded_key_too_costly")
    func hugeModulus() async throws {
        let signer = try JWK.generate(.rsa(bits: 2048))
        var jwk = signer.publicJWK
        jwk["n"] = .string(Base64URL.encode([UInt8](repeating: 0xFF, count: 1025)))  // 8200 bits
        let error = await Self.refusal(try Self.proof(jwk: jwk, signer: signer, algorithm: .rs256), boundTo: .notCheckedAtCallersRisk)
        #expect(
            error?.code == .dpopProofKey && error?.joseError?.code == .embeddedKeyTooCostly && error?.joseError?.member == "n",
            "\(String(describing: error))")
    }

    @Test(
        "with a presented token, the proof key's thumbprint is compared with cnf.jkt before the signature: a bad signature under another key is dpop_proof_jkt (was dpop_proof_signature)"
    )
    func jktBeforeSignature() async throws {
        let claimed = try JWK.generate(.ec(.p256)), forger = try JWK.generate(.ec(.p256))
        let forged = try Self.proof(jwk: claimed.publicJWK, signer: forger, algorithm: .es256)  // jwk says claimed, signed by forger
        #expect(await Self.refusal(forged, boundTo: .thumbprint("the-token's-key"))?.code == .dpopProofKeyBinding)
        // Bound to the claimed key: the binding holds, so the signature is checked and fails.
        #expect(await Self.refusal(forged, boundTo: .thumbprint(claimed.thumbprint()))?.code == .dpopProofSignature)
        // A good proof of the bound key passes.
        let good = try Self.proof(jwk: claimed.publicJWK, signer: claimed, algorithm: .es256)
        #expect(await Self.refusal(good, boundTo: .thumbprint(claimed.thumbprint())) == nil)
    }
}
