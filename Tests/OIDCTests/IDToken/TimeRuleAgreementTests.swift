import Foundation
import JOSE
import Testing

@testable import OIDC

/// One implementation of the time-claim rules: JOSE's `JWTClaims.validate`, the ID Token validator and the
/// foreign-token verifier accept and refuse the same tokens, with the same failure, at every boundary.
@Suite("Time rules: JOSE, ID Tokens and foreign tokens agree")
struct TimeRuleAgreementTests {
    static let now = Int64(F.start.timeIntervalSince1970)
    static let offsets: [Int64] = [-61, -60, -59, 0, 59, 60, 61]

    /// JOSE's verdict, as the OIDC code it maps to (`nil`: accepted).
    static func jose(_ claims: JSONObject) -> String? {
        do {
            try JWTClaims(payload: Array(claims.jsonString().utf8))
                .validate(JWTValidationPolicy(clock: { F.start }, leeway: 60, requiresExpiration: true))
            return nil
        } catch let error as JOSEError {
            switch error.code {
            case .missingClaim: return error.member == "exp" ? "missing_expiry" : "missing_issued_at"
            default: return error.code.rawValue
            }
        } catch {
            return "\(error)"
        }
    }

    static func oidc(_ body: () async throws -> Void) async -> String? {
        do {
            try await body()
            return nil
        } catch {
            return F.code(of: error)
        }
    }

    @Test("exp, nbf and iat around the 60 s leeway", arguments: ["exp", "nbf", "iat"])
    func agree(_ claim: String) async throws {
        let key = try F.privateKey("rsa2048", kid: "k")
        let validator = IDTokenValidator(configuration: F.config(), keys: .keySet(try JWKSet(json: F.jwks([try F.publicJWK("rsa2048", kid: "k")]))))
        let foreign = try ForeignTokenValidator(
            trustedKeyDocuments: [F.issuer: F.publicJWK("rsa2048", kid: "k")], clock: { F.start },
            leeway: 60)
        var refused = 0
        for offset in Self.offsets {
            let claims = F.claims([(claim, .integer(Self.now + offset))])
            let token = try F.sign(claims, key: key, .rs256)
            let expected = Self.jose(claims)
            let asIDToken = await Self.oidc { _ = try await validator.validate(token, expecting: IDTokenExpectations(nonce: .noNonceSent)) }
            let asForeign = await Self.oidc { _ = try await foreign.validate(token, audience: .anyAudience) }
            #expect(asIDToken == expected, "\(claim) at now\(offset >= 0 ? "+" : "")\(offset)")
            #expect(asForeign == expected, "\(claim) at now\(offset >= 0 ? "+" : "")\(offset)")
            if expected != nil { refused += 1 }
        }
        #expect(refused > 0 && refused < Self.offsets.count, "the grid crosses the boundary")
    }
}
