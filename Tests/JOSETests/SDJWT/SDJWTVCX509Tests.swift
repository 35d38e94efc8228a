import Foundation
import JOSE
import Testing

/// SD-JWT VC issuer keys from `x5c` (draft-ietf-oauth-sd-jwt-vc, X.509 certificates), validated by libcrypto against the
/// application's trust anchors: Fixtures/x5c holds a root, an intermediate, a leaf for https://issuer.example/credentials
/// (URI SAN) and issuer.example (DNS SAN), and a rogue root of the same name with a leaf of its own.
@Suite("SD-JWT VC: issuer keys from x5c and trust anchors")
struct SDJWTVCX509Tests {
    typealias F = SDJWTFixture
    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/x5c")

    static func text(_ name: String) throws -> String { try String(contentsOf: folder.appendingPathComponent(name), encoding: .utf8) }

    /// The standard Base64 body of a PEM certificate file (an `x5c` entry).
    static func x5c(_ name: String) throws -> JSONValue {
        .string(try text(name).split(separator: "\n").filter { !$0.hasPrefix("-----") }.joined())
    }

    static func anchors(_ name: String = "root.pem") throws -> X509TrustAnchors { try X509TrustAnchors(pem: try text(name)) }

    /// An SD-JWT VC of `iss` signed by `key` with `chain` as its x5c (omitted when nil), one disclosure (given_name).
    static func credential(iss: String = "https://issuer.example/credentials", chain: JSONValue?, key: JWK? = nil) throws -> SDJWT {
        let disclosure = F.disclosure(["c2FsdHNhbHRzYWx0c2FsdA", "given_name", "Erika"])
        let payload: JSONObject = ["iss": .string(iss), "vct": "https://credentials.example/id", "_sd": [.string(F.digest(disclosure))]]
        var header: JSONObject = ["typ": "dc+sd-jwt"]
        if let chain { header["x5c"] = chain }
        let signer = try key ?? JWK(pem: try text("leaf.key"))
        return SDJWT(issuerSignedJWT: try JWT.sign(payload, key: signer, algorithm: .es256, header: header), disclosures: [disclosure])
    }

    static func policy(at date: Date = Date()) -> SDJWTVerificationPolicy { SDJWTVerificationPolicy(claims: JWTValidationPolicy(clock: { date })) }

    func code(_ token: SDJWT, anchors: X509TrustAnchors? = nil, policy: SDJWTVerificationPolicy = policy()) -> JOSEError.Code? {
        F.code { _ = try SDJWTVC.verify(token, trustAnchors: try anchors ?? Self.anchors(), policy: policy) }
    }

    @Test("a leaf and its intermediate that chain to the anchor verify; the leaf's key checks the signature")
    func validChain() throws {
        let chain: JSONValue = [try Self.x5c("leaf.pem"), try Self.x5c("intermediate.pem")]
        let verified = try SDJWTVC.verify(try Self.credential(chain: chain), trustAnchors: try Self.anchors(), policy: Self.policy())
        #expect(verified.claims.object["given_name"] == "Erika")
        #expect(try verified.claims.issuer == "https://issuer.example/credentials")
        // The DNS SAN names the host of any https issuer on it.
        #expect(code(try Self.credential(iss: "https://issuer.example/other", chain: chain)) == nil)
        // Signed by another key than the leaf's: the signature fails, whatever the chain.
        #expect(code(try Self.credential(chain: chain, key: try JWK.generate(.ec(.p256)))) == .invalidSignature)
    }

    @Test("a chain that does not reach the anchors is untrusted: rogue root, missing intermediate, expired, anchor not given")
    func untrusted() throws {
        let chain: JSONValue = [try Self.x5c("leaf.pem"), try Self.x5c("intermediate.pem")]
        #expect(code(try Self.credential(chain: chain), anchors: try Self.anchors("rogue.pem")) == .x5cUntrusted)
        #expect(code(try Self.credential(chain: [try Self.x5c("leaf.pem")])) == .x5cUntrusted)
        // A leaf of the rogue root (same root name), even with the rogue root itself in the chain.
        #expect(code(try Self.credential(chain: [try Self.x5c("rogue-leaf.pem"), try Self.x5c("rogue.pem")])) == .x5cUntrusted)
        // The validation time is the policy's clock: after the leaf's notAfter (2109) the chain fails.
        #expect(code(try Self.credential(chain: chain), policy: Self.policy(at: Date(timeIntervalSince1970: 4_500_000_000))) == .x5cUntrusted)
        // The anchors are the only roots: the system's store is not consulted, and an intermediate is not an anchor
        // for a chain that names a root it cannot reach.
        #expect(code(try Self.credential(chain: chain), anchors: try Self.anchors("rogue-leaf.pem")) == .x5cUntrusted)
    }

    @Test("the leaf must name the credential's iss: URI SAN equal to it, or DNS SAN equal to its https host")
    func issuerNamed() throws {
        let chain: JSONValue = [try Self.x5c("leaf.pem"), try Self.x5c("intermediate.pem")]
        #expect(code(try Self.credential(iss: "https://evil.example/credentials", chain: chain)) == .x5cIssuerMismatch)
        #expect(code(try Self.credential(iss: "http://issuer.example/credentials", chain: chain)) == .x5cIssuerMismatch)
        #expect(code(try Self.credential(iss: "https://sub.issuer.example", chain: chain)) == .x5cIssuerMismatch)
    }

    @Test("x5c missing, not an array of 1 to 10, not Base64 or not a certificate is x5c_invalid; anchors must be certificates")
    func malformed() throws {
        #expect(code(try Self.credential(chain: nil)) == .x5cInvalid)
        #expect(code(try Self.credential(chain: try Self.x5c("leaf.pem"))) == .x5cInvalid)
        #expect(code(try Self.credential(chain: [])) == .x5cInvalid)
        #expect(code(try Self.credential(chain: .array(Array(repeating: try Self.x5c("leaf.pem"), count: 11)))) == .x5cInvalid)
        #expect(code(try Self.credential(chain: ["not base64 !"])) == .x5cInvalid)
        #expect(code(try Self.credential(chain: [.string(Data("not a certificate".utf8).base64EncodedString())])) == .x5cInvalid)
        #expect(F.code { _ = try X509TrustAnchors(pem: "") } == .invalidKey)
        #expect(F.code { _ = try X509TrustAnchors(der: [Array("nope".utf8)]) } == .invalidKey)
        #expect(F.code { _ = try X509TrustAnchors(pem: try Self.text("root.pem") + "\n" + (try Self.text("rogue.pem"))) } == nil)
    }
}
