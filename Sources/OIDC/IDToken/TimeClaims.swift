import JOSE

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// JOSE's time rules (``JWTClaims``' `validateTimes`, the only copy) with their failures as ``OIDCError``s.
enum TimeClaims {
    /// Applies the rules to `claims`; `what` names the token in the error ("the ID Token", "the token").
    /// - Throws: ``OIDCError`` `.expired`, `.notYetValid`, `.issuedInFuture`, `.missingExpiry`, `.missingIssuedAt`,
    ///   `.claimTypeMismatch`.
    static func check(
        _ claims: JWTClaims, now: Date, leeway: TimeInterval, requiresExpiration: Bool, requiresIssuedAt: Bool,
        checksExpiration: Bool = true, what: String
    ) throws {
        do {
            try claims.validateTimes(
                now: now, leeway: leeway, requiresExpiration: requiresExpiration,
                requiresIssuedAt: requiresIssuedAt, checksExpiration: checksExpiration)
        } catch let error as JOSEError {
            let code: OIDCError.Code
            switch (error.code, error.member) {
            case (.expired, _): code = .expired
            case (.notYetValid, _): code = .notYetValid
            case (.issuedInFuture, _): code = .issuedInFuture
            case (.missingClaim, "exp"?): code = .missingExpiry
            case (.missingClaim, "iat"?): code = .missingIssuedAt
            default: throw IDToken.claimError(error)
            }
            throw OIDCError(code, "\(what): \(error.reason)", joseError: error)
        }
    }
}
