import JOSE

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Where an issuer's verification keys come from, for every validator of the package.
///
/// A JWK Set cache follows the issuer's key rotation; a fixed set serves offline use and
/// tests. ID Tokens, logout tokens, access tokens, introspection answers and tokens from
/// other issuers are all verified through it, so the key rules exist once.
/// `oct` keys are never used: an issuer's keys are asymmetric.
public enum IssuerKeys: Sendable {
    /// The issuer's ``JWKSetCache``: the cached set, and one re-fetch for an unknown `kid`
    /// rate-limited by the cache.
    case cache(JWKSetCache)
    /// A fixed set. A single key without `kid`, such as one read from a PEM file, is pinned:
    /// an ID Token is verified with it whatever `kid` its header names.
    case keySet(JWKSet)

    /// Verifies `jws`'s signature under `policy`, the key chosen by `kid` (or the single fitting key).
    /// - Throws: ``OIDCError`` signature and key codes, such as `.signingKeyNotFound` or `.invalidSignature`,
    ///   and key-set fetch errors from the cache.
    package func verifySignature(_ jws: CompactJWS, policy: JWSVerificationPolicy) async throws {
        switch self {
        case .cache(let cache):
            _ = try await cache.verify(jws, policy: policy)
        case .keySet(let keys):
            let usable = keys.filter { $0.keyType != .oct }
            do {
                // A single key without kid (a pinned key) has nothing to match a kid against: it is the key.
                if usable.keys.count == 1, usable.keys[0].keyID == nil {
                    try jws.verify(with: usable.keys[0], policy: policy)
                } else {
                    try jws.verify(with: usable, policy: policy)
                }
            } catch let error as JOSEError {
                throw VerificationErrors.map(error, header: jws.header)
            }
        }
    }

    /// Verifies `token`'s signature with an allowed algorithm, then applies `validation`.
    ///
    /// `validation` carries JOSE's time rules and the issuer and audience the caller requires.
    /// - Throws: ``OIDCError`` of category `invalidInput`, such as `.invalidSignature`, `.expired` or `.audienceMismatch`;
    ///   a missing required claim has the code of `kind`.
    package func verify(
        _ token: String, policy: JWSVerificationPolicy, validation: JWTValidationPolicy,
        kind: ClaimErrors.TokenKind = .accessToken
    ) async throws -> JWT {
        if let jwt = try verifyNow(token[...], policy: policy, validation: validation, kind: kind) { return jwt }
        switch self {
        case .keySet(let set):  // a fixed set always answers now: this repeats its answer
            return try Self.verify(token[...], fixedSet: set, policy: policy, validation: validation, kind: kind)
        case .cache(let cache):
            do {
                let set = try await cache.keys()
                do {
                    return try JWT.verifyIgnoringIssuerAndAudience(token, keys: set, policy: policy, validation: validation)
                } catch let error as JOSEError where error.code == .keyNotFound {
                    // An unknown kid: let the cache re-fetch (at most once per cool-down), then verify with that key.
                    let jws = try CompactJWS(token, limits: policy.limits)
                    let key = try await cache.key(for: jws)
                    return try JWT.verifyIgnoringIssuerAndAudience(token, key: key, policy: policy, validation: validation)
                }
            } catch let error as JOSEError {
                throw ClaimErrors.map(error, kind: kind)
            }
        }
    }

    /// Does what ``verify(_:policy:validation:kind:)`` does without suspending, when the keys are at hand.
    ///
    /// The keys are at hand for a fixed set, or a cached set still fresh, read without a hop onto the cache's actor:
    /// the hot path of every validation. `token` may be part of a longer text, such as an `Authorization` value.
    /// - Returns: `nil` when only ``verify(_:policy:validation:kind:)`` can answer: the set is to be fetched, or
    ///   the token names a `kid` the set lacks, which the cache may learn by re-fetching.
    /// - Throws: as ``verify(_:policy:validation:kind:)``.
    package func verifyNow(
        _ token: Substring, policy: JWSVerificationPolicy, validation: JWTValidationPolicy,
        kind: ClaimErrors.TokenKind = .accessToken
    ) throws -> JWT? {
        switch self {
        case .keySet(let set):
            return try Self.verify(token, fixedSet: set, policy: policy, validation: validation, kind: kind)
        case .cache(let cache):
            guard let set = cache.freshKeys() else { return nil }
            do {
                return try JWT.verifyIgnoringIssuerAndAudience(token, keys: set, policy: policy, validation: validation)
            } catch let error as JOSEError where error.code == .keyNotFound {
                return nil
            } catch let error as JOSEError {
                throw ClaimErrors.map(error, kind: kind)
            }
        }
    }

    /// The verification with a fixed set, its `oct` keys left out.
    private static func verify(
        _ token: Substring, fixedSet set: JWKSet, policy: JWSVerificationPolicy, validation: JWTValidationPolicy,
        kind: ClaimErrors.TokenKind
    ) throws -> JWT {
        let usable = set.keys.contains { $0.keyType == .oct } ? set.filter { $0.keyType != .oct } : set
        do {
            return try JWT.verifyIgnoringIssuerAndAudience(token, keys: usable, policy: policy, validation: validation)
        } catch let error as JOSEError {
            throw ClaimErrors.map(error, kind: kind)
        }
    }

    /// The asymmetric algorithms this process can verify: never HMAC, as a resource server shares no secret with
    /// the issuer, and ML-DSA only where the runtime libcrypto provides it (``/JOSE/JWSAlgorithm/isAvailable``), so that
    /// no default list (DPoP `algs` challenges included) names an algorithm that would fail `algorithm_unavailable`.
    public static let asymmetricAlgorithms: Set<JWSAlgorithm> = Set(JWSAlgorithm.allCases.filter { $0.family != .hmac && $0.isAvailable })
}

/// JOSE failures as ``OIDCError``s: claim rules here, signature and key rules through OIDC's mapping.
package enum ClaimErrors {
    /// Which kind of JWT is read: it decides the code of a missing required claim.
    package enum TokenKind {
        /// An RFC 9068 access token: `.missingAccessTokenClaim`.
        case accessToken
        /// A back-channel logout token: `.missingLogoutTokenClaim`.
        case logoutToken
        /// An RFC 9701 introspection answer: `.invalidIntrospectionResponse`.
        case introspectionResponse

        package var missingClaimCode: OIDCError.Code {
            switch self {
            case .accessToken: return .missingAccessTokenClaim
            case .logoutToken: return .missingLogoutTokenClaim
            case .introspectionResponse: return .invalidIntrospectionResponse
            }
        }
    }

    package static func map(_ error: JOSEError, kind: TokenKind = .accessToken) -> OIDCError {
        switch error.code {
        case .expired: return OIDCError(.expired, error.reason, joseError: error)
        case .notYetValid: return OIDCError(.notYetValid, error.reason, joseError: error)
        case .issuedInFuture: return OIDCError(.issuedInFuture, error.reason, joseError: error)
        case .issuerMismatch: return OIDCError(.issuerMismatch, error.reason, joseError: error)
        case .audienceMismatch: return OIDCError(.audienceMismatch, error.reason, joseError: error)
        case .missingClaim: return OIDCError(kind.missingClaimCode, error.reason, joseError: error)
        case .claimTypeMismatch: return OIDCError(.claimTypeMismatch, error.reason, joseError: error)
        default:
            let mapped = VerificationErrors.map(error, header: nil)
            // OIDC's mapping names ID Tokens; these tokens are access, logout or introspection JWTs.
            if mapped.code == .malformedIDToken || mapped.code == .invalidIDTokenHeader {
                return OIDCError(.malformedJWT, "the token is not a well-formed signed JWT", joseError: error)
            }
            return mapped
        }
    }

    /// A typed claim getter's failure as an ``OIDCError``.
    package static func read<T>(kind: TokenKind = .accessToken, _ body: () throws -> T) throws -> T {
        do { return try body() } catch let error as JOSEError { throw map(error, kind: kind) }
    }
}
