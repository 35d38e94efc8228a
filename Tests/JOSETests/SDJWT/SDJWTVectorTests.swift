import Foundation
import JOSE
import Testing

/// RFC 9901's own examples as fixed vectors (§4.2.1, §4.2.2, §4.2.3, §4.2.4).
@Suite("SD-JWT: RFC 9901 examples")
struct SDJWTVectorTests {
    static let familyName = "WyJfMjZiYzRMVC1hYzZxMktJNmNCVzVlcyIsICJmYW1pbHlfbmFtZSIsICJNw7ZiaXVzIl0"
    static let nationalityFR = "WyJsa2x4RjVqTVlsR1RQVW92TU5JdkNBIiwgIkZSIl0"

    @Test("the family_name disclosure decodes to [salt, name, value] and hashes to the RFC's digest")
    func objectDisclosure() throws {
        let disclosure = try SDJWTDisclosure(encoded: Self.familyName)
        #expect(disclosure.salt == "_26bc4LT-ac6q2KI6cBW5es")
        #expect(disclosure.name == "family_name")
        #expect(disclosure.value == .string("Möbius"))
        #expect(disclosure.digest(.sha256) == "X9yH0Ajrdm1Oij4tWso9UzzKJvPoDxwmuEcO3XAdRC0")
    }

    @Test("the nationalities disclosure is an array element hashing to the RFC's digest")
    func arrayDisclosure() throws {
        let disclosure = try SDJWTDisclosure(encoded: Self.nationalityFR)
        #expect(disclosure.name == nil)
        #expect(disclosure.value == .string("FR"))
        #expect(disclosure.digest(.sha256) == "w0I8EKcdCtUPkGCNUrfwVp2xEgNjtoIDlOxc9-PlOhs")
    }

    @Test("the RFC's other encodings of the same claim decode alike but digest differently (no canonicalisation)")
    func variations() throws {
        let variants = [
            "WyJfMjZiYzRMVC1hYzZxMktJNmNCVzVlcyIsICJmYW1pbHlfbmFtZSIsICJNXHUwMGY2Yml1cyJd",
            "WyJfMjZiYzRMVC1hYzZxMktJNmNCVzVlcyIsImZhbWlseV9uYW1lIiwiTcO2Yml1cyJd",
            "WwoiXzI2YmM0TFQtYWM2cTJLSTZjQlc1ZXMiLAoiZmFtaWx5X25hbWUiLAoiTcO2Yml1cyIKXQ",
        ]
        for variant in variants {
            let disclosure = try SDJWTDisclosure(encoded: variant)
            #expect(disclosure.name == "family_name")
            #expect(disclosure.value == .string("Möbius"))
            #expect(disclosure.digest(.sha256) != "X9yH0Ajrdm1Oij4tWso9UzzKJvPoDxwmuEcO3XAdRC0")
        }
    }

    @Test("the RFC's payload with the family_name digest, verified with its disclosure, gives the claim back")
    func objectPayload() throws {
        let token = try SDJWTFixture.token(["given_name": "Alice", "_sd": ["X9yH0Ajrdm1Oij4tWso9UzzKJvPoDxwmuEcO3XAdRC0"]], [Self.familyName])
        let verified = try token.verify(key: SDJWTFixture.issuer.publicKey, policy: SDJWTFixture.policy())
        #expect(verified.claims.object == ["given_name": "Alice", "family_name": "Möbius"])
        #expect(verified.disclosures.map(\.pointer) == ["/family_name"])
        let withheld = try SDJWTFixture.token(["given_name": "Alice", "_sd": ["X9yH0Ajrdm1Oij4tWso9UzzKJvPoDxwmuEcO3XAdRC0"]], [])
        #expect(try withheld.verify(key: SDJWTFixture.issuer.publicKey, policy: SDJWTFixture.policy()).claims.object == ["given_name": "Alice"])
    }

    @Test("the RFC's nationalities array: the disclosed element in place, an undisclosed one removed")
    func arrayPayload() throws {
        let payload: JSONObject = ["nationalities": ["DE", ["...": "w0I8EKcdCtUPkGCNUrfwVp2xEgNjtoIDlOxc9-PlOhs"], "US"]]
        let key = SDJWTFixture.issuer.publicKey
        let shown = try SDJWTFixture.token(payload, [Self.nationalityFR]).verify(key: key, policy: SDJWTFixture.policy())
        #expect(shown.claims["nationalities"] == ["DE", "FR", "US"])
        #expect(shown.disclosures.first?.pointer == "/nationalities/1")
        let hidden = try SDJWTFixture.token(payload, []).verify(key: key, policy: SDJWTFixture.policy())
        #expect(hidden.claims["nationalities"] == ["DE", "US"])
    }

    @Test("the compact form splits into JWT, disclosures and KB-JWT, and serialises back")
    func compactForm() throws {
        let plain = try SDJWT("a.b.c~d1~d2~")
        #expect(plain.issuerSignedJWT == "a.b.c" && plain.disclosures == ["d1", "d2"] && plain.keyBindingJWT == nil)
        #expect(plain.compact == "a.b.c~d1~d2~")
        let bound = try SDJWT("a.b.c~d1~x.y.z")
        #expect(bound.keyBindingJWT == "x.y.z" && bound.withoutKeyBinding == "a.b.c~d1~")
        for bad in ["a.b.c", "~d1~", "a.b.c~~", "a.b.c~d1~~", "a.b.c~d1~notajws", "a.b~"] {
            #expect(SDJWTFixture.code { _ = try SDJWT(bad) } == .malformedToken, "\(bad)")
        }
    }
}
