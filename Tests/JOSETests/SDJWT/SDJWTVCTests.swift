import Foundation
import JOSE
import Testing

/// SD-JWT VC rules: typ, vct, claims that stay in clear.
@Suite("SD-JWT VC")
struct SDJWTVCTests {
    typealias F = SDJWTFixture
    static let claims: JSONObject = [
        "iss": "https://issuer.example", "vct": "https://credentials.example/identity", "iat": 1_699_999_000,
        "given_name": "Erika", "status": ["status_list": ["idx": 3, "uri": "https://issuer.example/status/1"]],
    ]

    func code(_ claims: JSONObject = claims, sd: [String] = ["/given_name"], type: String? = "dc+sd-jwt") -> JOSEError.Code? {
        F.code {
            let token = try SDJWT.issue(claims: claims, disclosable: sd, key: F.issuer, algorithm: .es256, type: type)
            _ = try SDJWTVC.verify(token, keys: JWKSet(keys: [F.issuer.publicKey]), policy: F.policy())
        }
    }

    @Test("dc+sd-jwt and the older vc+sd-jwt verify; another typ or none is refused")
    func types() {
        #expect(code() == nil)
        #expect(code(type: "vc+sd-jwt") == nil)
        #expect(code(type: "example+sd-jwt") == .invalidHeader)
        #expect(code(type: nil) == .invalidHeader)
    }

    @Test("issuerJWTType: the issuer-signed JWT's typ must be the one named (case-insensitive, application/ optional)")
    func issuerJWTType() {
        func code(_ type: String?) -> JOSEError.Code? {
            F.code {
                let token = try SDJWT.issue(claims: ["given_name": "Erika"], disclosable: ["/given_name"], key: F.issuer, algorithm: .es256, type: type)
                var policy = F.policy()
                policy.issuerJWTType = "example+sd-jwt"
                _ = try token.verify(key: F.issuer.publicKey, policy: policy)
            }
        }
        #expect(code("example+sd-jwt") == nil)
        #expect(code("application/Example+SD-JWT") == nil)
        #expect(code("JWT") == .invalidHeader)
        #expect(code(nil) == .invalidHeader)
    }

    @Test("vct is required and a string")
    func vct() {
        var without = Self.claims
        without["vct"] = nil
        #expect(code(without) == .missingClaim)
        var number = Self.claims
        number["vct"] = 5
        #expect(code(number) == .claimTypeMismatch)
    }

    @Test("iss, vct, cnf, status, exp, nbf disclosed selectively are refused; nested names of the same spelling are not")
    func neverDisclosable() {
        for name in ["iss", "vct", "status"] { #expect(code(sd: ["/" + name]) == .sdClaimNotDisclosable, "\(name)") }
        var timed = Self.claims
        timed["exp"] = 1_800_000_000
        timed["nbf"] = 1_600_000_000
        timed["cnf"] = ["jkt": "x"]
        for name in ["exp", "nbf", "cnf"] { #expect(code(timed, sd: ["/" + name]) == .sdClaimNotDisclosable, "\(name)") }
        var nested = Self.claims
        nested["address"] = ["status": "resident"]
        #expect(code(nested, sd: ["/address/status"]) == nil)
    }
}
