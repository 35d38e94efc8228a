import Foundation
import JOSE
import Testing

/// Issuing (members and array elements, recursively; salts; decoys; sorted digests) and presenting subsets.
@Suite("SD-JWT: issue and present")
struct SDJWTIssuanceTests {
    typealias F = SDJWTFixture
    static let claims: JSONObject = [
        "iss": "https://issuer.example", "sub": "user-42", "given_name": "Erika",
        "address": ["street_address": "Heidestraße 17", "locality": "Köln", "country": "DE"],
        "nationalities": ["DE", "FR", ["code": "US", "since": 2020]],
    ]
    static let pointers = ["/given_name", "/address", "/address/street_address", "/address/locality", "/nationalities/1", "/nationalities/2"]

    func issue(decoys: Int = 0, hash: SDJWTHashAlgorithm = .sha256) throws -> SDJWT {
        try SDJWT.issue(
            claims: Self.claims, disclosable: Self.pointers, key: F.issuer, algorithm: .es256, type: "example+sd-jwt", decoys: decoys, hashAlgorithm: hash)
    }

    func verify(_ token: SDJWT) throws -> VerifiedSDJWT { try token.verify(key: F.issuer.publicKey, policy: F.policy()) }

    @Test("with every disclosure the processed claims equal the claims issued, for each hash function")
    func roundTrip() throws {
        for hash in SDJWTHashAlgorithm.allCases {
            let token = try issue(decoys: 3, hash: hash)
            #expect(token.disclosures.count == 6)
            let verified = try verify(token)
            #expect(verified.hashAlgorithm == hash)
            #expect(verified.claims.object.jsonString(sortedKeys: true) == JSONValue.object(Self.claims).jsonString(sortedKeys: true))
            #expect(Set(verified.disclosures.map(\.pointer)) == Set(Self.pointers))
            #expect(verified.header.type == "example+sd-jwt")
        }
    }

    @Test("the payload holds sorted digests, decoys, _sd_alg, {...} in arrays; salts have 128 bits and differ")
    func payloadShape() throws {
        let token = try issue(decoys: 5)
        let payload = try CompactJWS(token.issuerSignedJWT).payload
        let object = try #require(try JSONParser.parse(payload).objectValue)
        #expect(object["_sd_alg"] == "sha-256")
        #expect(object["given_name"] == nil && object["address"] == nil)
        let digests = try #require(object["_sd"]?.arrayValue).compactMap(\.stringValue)
        #expect(digests.count == 2 + 5)
        #expect(digests == digests.sorted())
        let list = try #require(object["nationalities"]?.arrayValue)
        #expect(list.first == "DE")
        #expect(list[1].objectValue?.names == ["..."])
        let salts = try token.disclosures.map { try SDJWTDisclosure(encoded: $0).salt }
        #expect(Set(salts).count == salts.count)
        for salt in salts { #expect(try Base64URL.decode(salt).count >= 16) }
        // Decoys are never disclosures: with none presented the claims show only what is in clear.
        let bare = try verify(SDJWT(issuerSignedJWT: token.issuerSignedJWT, disclosures: []))
        #expect(bare.claims.object == ["iss": "https://issuer.example", "sub": "user-42", "nationalities": ["DE"]])
    }

    @Test("presenting a nested pointer brings its parent's disclosure and nothing else")
    func presentNested() throws {
        let token = try issue()
        let presented = try token.presenting(["/address/locality"])
        #expect(presented.disclosures.count == 2)
        let claims = try verify(presented).claims.object
        #expect(claims["address"] == ["country": "DE", "locality": "Köln"])
        #expect(claims["given_name"] == nil)
    }

    @Test("presenting a parent brings everything below it; array elements keep the order of the others")
    func presentParent() throws {
        let token = try issue()
        #expect(try verify(token.presenting(["/address"])).claims["address"]?.objectValue?.count == 3)
        let claims = try verify(token.presenting(["/nationalities/2"])).claims.object
        #expect(claims["nationalities"] == ["DE", ["code": "US", "since": 2020]])
        #expect(try token.presenting([]).disclosures.isEmpty)
    }

    @Test("pointers naming nothing, malformed pointers and reserved claim names are refused")
    func issueRefusals() throws {
        func issueCode(_ claims: JSONObject, _ pointers: [String]) -> JOSEError.Code? {
            F.code { _ = try SDJWT.issue(claims: claims, disclosable: pointers, key: F.issuer, algorithm: .es256) }
        }
        #expect(issueCode(Self.claims, ["/nope"]) == .missingClaim)
        #expect(issueCode(Self.claims, ["/nationalities/9"]) == .missingClaim)
        #expect(issueCode(Self.claims, ["given_name"]) == .claimMismatch)
        #expect(issueCode(Self.claims, ["/a~2"]) == .claimMismatch)
        #expect(issueCode(["_sd": []], []) == .sdReservedClaimName)
        #expect(issueCode(["a": ["...": 1]], []) == .sdReservedClaimName)
        #expect(issueCode(["a~b/c": 1], ["/a~0b~1c"]) == nil)
        #expect(F.code { _ = try issue().presenting(["/missing"]) } == .missingClaim)
    }
}
