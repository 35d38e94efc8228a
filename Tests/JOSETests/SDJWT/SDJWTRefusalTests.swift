import Foundation
import JOSE
import Testing

/// Every refusal of RFC 9901 §7.1, each with its own code.
@Suite("SD-JWT: refusals")
struct SDJWTRefusalTests {
    typealias F = SDJWTFixture
    static let name = F.disclosure(["salt-1234567890abcdef", "given_name", "Erika"])
    static let element = F.disclosure(["salt-abcdef1234567890", "FR"])

    func code(_ token: SDJWT, key: JWK = F.issuer.publicKey, policy: SDJWTVerificationPolicy = F.policy()) -> JOSEError.Code? {
        F.code { _ = try token.verify(key: key, policy: policy) }
    }

    @Test("a well-formed token verifies (the baseline the refusals below depart from)")
    func baseline() throws {
        let token = try F.token(["_sd": [.string(F.digest(Self.name))], "list": [["...": .string(F.digest(Self.element))]]], [Self.name, Self.element])
        let verified = try token.verify(key: F.issuer.publicKey, policy: F.policy())
        #expect(verified.claims.object == ["list": ["FR"], "given_name": "Erika"])
    }

    @Test("a disclosure whose digest appears nowhere, and a tampered one, are refused")
    func unreferenced() throws {
        let other = F.disclosure(["salt-0000000000000000", "family_name", "Mustermann"])
        #expect(code(try F.token(["_sd": [.string(F.digest(Self.name))]], [Self.name, other])) == .sdUnreferencedDisclosure)
        let tampered = F.disclosure(["salt-1234567890abcdef", "given_name", "Mallory"])
        #expect(code(try F.token(["_sd": [.string(F.digest(Self.name))]], [tampered])) == .sdUnreferencedDisclosure)
        // A nested disclosure presented without its parent is not referenced either.
        let child = F.disclosure(["salt-child-000000000", "street", "Main St"])
        let parent = F.disclosure(["salt-parent-00000000", "address", ["_sd": [.string(F.digest(child))]]])
        #expect(code(try F.token(["_sd": [.string(F.digest(parent))]], [child])) == .sdUnreferencedDisclosure)
        #expect(code(try F.token(["_sd": [.string(F.digest(parent))]], [parent, child])) == nil)
    }

    @Test("a digest that appears twice is refused, at one level or across levels")
    func duplicateDigest() throws {
        let digest = JSONValue.string(F.digest(Self.name))
        #expect(code(try F.token(["_sd": [digest, digest]], [Self.name])) == .sdDuplicateDigest)
        #expect(code(try F.token(["_sd": [digest], "nested": ["_sd": [digest]]], [Self.name])) == .sdDuplicateDigest)
        #expect(code(try F.token(["a": [["...": digest]], "b": [["...": digest]]], [])) == .sdDuplicateDigest)
    }

    @Test("the same disclosure twice is refused")
    func repeatedDisclosure() throws {
        #expect(code(try F.token(["_sd": [.string(F.digest(Self.name))]], [Self.name, Self.name])) == .sdRepeatedDisclosure)
    }

    @Test("a disclosure named _sd or ... is refused")
    func reservedNames() throws {
        for reserved in ["_sd", "..."] {
            let disclosure = F.disclosure(["salt-1234567890abcdef", .string(reserved), "x"])
            #expect(code(try F.token(["_sd": [.string(F.digest(disclosure))]], [disclosure])) == .sdReservedClaimName)
        }
    }

    @Test("a disclosed name already present in clear, or disclosed twice, at that level is refused")
    func nameConflict() throws {
        #expect(code(try F.token(["given_name": "Clear", "_sd": [.string(F.digest(Self.name))]], [Self.name])) == .sdClaimNameConflict)
        let again = F.disclosure(["salt-other-000000000", "given_name", "Other"])
        #expect(code(try F.token(["_sd": [.string(F.digest(Self.name)), .string(F.digest(again))]], [Self.name, again])) == .sdClaimNameConflict)
    }

    @Test("malformed disclosures are refused: not Base64URL, not JSON, not an array of 2 or 3, salt or name not strings")
    func malformedDisclosures() throws {
        let bad = [
            "not*base64", "WyJh", Base64URL.encode("{\"a\":1}"), Base64URL.encode("[\"only-salt\"]"), Base64URL.encode("[1, \"n\", \"v\"]"),
            Base64URL.encode("[\"s\", 2, \"v\"]"), Base64URL.encode("[\"s\", \"n\", \"v\", \"w\"]"), Base64URL.encode("[\"s\", \"n\", 1,]"),
        ]
        for disclosure in bad {
            #expect(code(try F.token(["_sd": [.string(F.digest(disclosure))]], [disclosure])) == .sdMalformedDisclosure, "\(disclosure)")
        }
    }

    @Test("an array-element disclosure in _sd, or a member disclosure in an array, is refused")
    func misplaced() throws {
        #expect(code(try F.token(["_sd": [.string(F.digest(Self.element))]], [Self.element])) == .sdMisplacedDisclosure)
        #expect(code(try F.token(["list": [["...": .string(F.digest(Self.name))]]], [Self.name])) == .sdMisplacedDisclosure)
    }

    @Test("_sd that is not an array of strings, or a ... that is not a string, is refused")
    func malformedPayload() throws {
        #expect(code(try F.token(["_sd": "digest"], [])) == .sdMalformedPayload)
        #expect(code(try F.token(["_sd": [1]], [])) == .sdMalformedPayload)
        #expect(code(try F.token(["list": [["...": 1]]], [])) == .sdMalformedPayload)
    }

    @Test("_sd_alg other than sha-256, sha-384, sha-512 is refused; those three verify")
    func hashAlgorithms() throws {
        for name in ["md5", "sha-1", "SHA-256", "sha3-256"] {
            #expect(code(try F.token(["_sd_alg": .string(name), "_sd": [.string(F.digest(Self.name))]], [Self.name])) == .sdUnsupportedHashAlgorithm)
        }
        #expect(code(try F.token(["_sd_alg": 256], [])) == .sdUnsupportedHashAlgorithm)
        for algorithm in SDJWTHashAlgorithm.allCases {
            let token = try F.token(["_sd_alg": .string(algorithm.rawValue), "_sd": [.string(F.digest(Self.name, algorithm))]], [Self.name])
            #expect(try token.verify(key: F.issuer.publicKey, policy: F.policy()).claims.object == ["given_name": "Erika"])
            // The same disclosure under another function's digest is not found.
            let wrong: SDJWTHashAlgorithm = algorithm == .sha256 ? .sha512 : .sha256
            let mismatched = try F.token(["_sd_alg": .string(algorithm.rawValue), "_sd": [.string(F.digest(Self.name, wrong))]], [Self.name])
            #expect(code(mismatched) == .sdUnreferencedDisclosure)
        }
    }

    @Test("the issuer-signed JWT goes through JWS verification: alg none, another key, an altered payload are refused")
    func issuerSignature() throws {
        let token = try F.token(["_sd": [.string(F.digest(Self.name))]], [Self.name])
        let other = try JWK.generate(.ec(.p256)).publicKey
        #expect(code(token, key: other) == .invalidSignature)
        let parts = token.issuerSignedJWT.split(separator: ".")
        let none = Base64URL.encode("{\"alg\":\"none\"}") + "." + parts[1] + "."
        #expect(code(SDJWT(issuerSignedJWT: none, disclosures: [Self.name])) != nil)
        let altered = parts[0] + "." + Base64URL.encode("{\"_sd\":[],\"given_name\":\"Mallory\"}") + "." + parts[2]
        #expect(code(SDJWT(issuerSignedJWT: String(altered), disclosures: [])) == .invalidSignature)
    }

    @Test("claim checks apply to the processed payload: a disclosed exp counts, iss is checked after disclosure")
    func processedClaims() throws {
        let exp = F.disclosure(["salt-exp-00000000000", "exp", 1_600_000_000])
        #expect(code(try F.token(["_sd": [.string(F.digest(exp))]], [exp])) == .expired)
        let iss = F.disclosure(["salt-iss-00000000000", "iss", "https://issuer.example"])
        var policy = F.policy()
        policy.claims.issuer = "https://issuer.example"
        #expect(code(try F.token(["_sd": [.string(F.digest(iss))]], [iss]), policy: policy) == nil)
        policy.claims.issuer = "https://other.example"
        #expect(code(try F.token(["_sd": [.string(F.digest(iss))]], [iss]), policy: policy) == .issuerMismatch)
    }

    @Test("recursion is bounded: a chain of disclosures deeper than the limit is refused")
    func depthBound() throws {
        var disclosures: [String] = []
        var digest = ""
        for level in 0..<80 {
            let value: JSONValue = level == 0 ? "leaf" : ["_sd": [.string(digest)]]
            let disclosure = F.disclosure([.string("salt-\(level)-0000000000000"), "n", value])
            disclosures.append(disclosure)
            digest = F.digest(disclosure)
        }
        #expect(code(try F.token(["_sd": [.string(digest)]], disclosures)) == .limitExceeded)
    }
}
