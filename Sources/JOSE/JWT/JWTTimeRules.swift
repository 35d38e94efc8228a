#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension JWTClaims {
    /// The time rules of RFC 7519 §4.1.4–4.1.6, the only copy in the package (``validate(_:)``, the ID Token
    /// validator and the foreign-token verifier of `OIDC` all apply these): a token is expired from
    /// `exp + leeway` on, not yet valid before `nbf - leeway`, and refused when `iat` is more than `leeway`
    /// in the future. The leeway is taken as ``Leeway/effective(_:)`` says (NaN or negative: 0; at most a day),
    /// so no configured value can switch a check off.
    /// - Parameters:
    ///   - requiresExpiration: `exp` must be present.
    ///   - requiresIssuedAt: `iat` must be present.
    ///   - checksExpiration: `false` only for an explicit, named opt-out of the caller (an `insecure…` flag).
    /// Each of `exp`, `nbf` and `iat` present must be a NumericDate in range (``date(_:)``), else
    /// `.claimTypeMismatch`; `auth_time` is read by the same rule where a token kind uses it (ID Tokens,
    /// access tokens).
    /// - Throws: ``JOSEError`` `.expired`, `.notYetValid`, `.issuedInFuture`, `.missingClaim` (member `exp` or
    ///   `iat`), `.claimTypeMismatch`; ``JOSEError/member`` names the claim.
    package func validateTimes(
        now: Date, leeway: TimeInterval, requiresExpiration: Bool, requiresIssuedAt: Bool,
        checksExpiration: Bool = true
    ) throws {
        let leeway = Leeway.effective(leeway)
        if !checksExpiration {
            // The caller opted out by name.
        } else if let expiresAt = try expiresAt {
            if Self.isExpired(expiresAt, now: now, effectiveLeeway: leeway) {
                throw JOSEError(.expired, "the token expired at \(unixSecondsText(expiresAt)) (leeway \(leeway.wholeText) s)", member: "exp")
            }
        } else if requiresExpiration {
            throw JOSEError(.missingClaim, "the token has no \"exp\"", member: "exp")
        }
        if let notBefore = try notBefore, Self.isNotYetValid(notBefore, now: now, effectiveLeeway: leeway) {
            throw JOSEError(.notYetValid, "the token is not valid before \(unixSecondsText(notBefore)) (leeway \(leeway.wholeText) s)", member: "nbf")
        }
        if let issuedAt = try issuedAt {
            if issuedAt.timeIntervalSince(now) > leeway {
                throw JOSEError(.issuedInFuture, "the token was issued in the future, at \(unixSecondsText(issuedAt))", member: "iat")
            }
        } else if requiresIssuedAt {
            throw JOSEError(.missingClaim, "the token has no \"iat\"", member: "iat")
        }
    }
}

extension JWTClaims {
    /// Whether `exp` has passed at `now` under ``validateTimes(now:leeway:requiresExpiration:requiresIssuedAt:checksExpiration:)``'s
    /// rule (from `exp + leeway` on), for a caller that read `exp` before, such as a cache of verified tokens re-checking a hit.
    package static func isExpired(_ expiresAt: Date, now: Date, leeway: TimeInterval) -> Bool {
        isExpired(expiresAt, now: now, effectiveLeeway: Leeway.effective(leeway))
    }

    /// Whether `nbf` is still ahead at `now` under the same rule (before `nbf - leeway`).
    package static func isNotYetValid(_ notBefore: Date, now: Date, leeway: TimeInterval) -> Bool {
        isNotYetValid(notBefore, now: now, effectiveLeeway: Leeway.effective(leeway))
    }

    private static func isExpired(_ expiresAt: Date, now: Date, effectiveLeeway leeway: TimeInterval) -> Bool {
        now.timeIntervalSince(expiresAt) >= leeway
    }

    private static func isNotYetValid(_ notBefore: Date, now: Date, effectiveLeeway leeway: TimeInterval) -> Bool {
        notBefore.timeIntervalSince(now) > leeway
    }
}

/// A NumericDate for error messages (whole seconds, or the number as given when it is out of range).
func unixSecondsText(_ date: Date) -> String { date.timeIntervalSince1970.wholeText }
