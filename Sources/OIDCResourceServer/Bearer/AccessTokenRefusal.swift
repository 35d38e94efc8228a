import OIDCCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The HTTP answer to send for a request whose access token was refused: the status, one `WWW-Authenticate`
/// field per challenge (the scheme the client used first, carrying the error), `DPoP-Nonce`, and a JSON body
/// (RFC 6750 §3, RFC 9449 §7.1). ``ResourceGuard`` answers every refusal with one, for JWT access tokens and
/// introspection alike; the error behind it stays in ``cause``, for logs.
///
/// | situation | challenges | status |
/// |---|---|---|
/// | no token | `Bearer`, `DPoP algs=...` | 401 |
/// | malformed request | `invalid_request` (scheme used) | 400 |
/// | token invalid, expired, wrong audience or type | `invalid_token` (scheme used) | 401 |
/// | a `cnf.jkt`-bound token as `Bearer` | `Bearer invalid_token`, `DPoP algs=...` | 401 |
/// | proof missing, invalid, replayed or of another key, or its key's replay-cache share full (`replay_cache_full`) | `DPoP invalid_dpop_proof` | 401 |
/// | proof without the server's nonce | `DPoP use_dpop_nonce` and `DPoP-Nonce` | 401 |
/// | token lacks a required scope or `authorization_details` type (RFC 9396) | `insufficient_scope` with `scope` (scheme used) | 403 |
/// | the introspection endpoint or the issuer's keys unreachable | none | 503 |
/// | the resource server's own configuration refused (e.g. its client authentication) | none | 500 |
public struct AccessTokenRefusal: Sendable, Hashable, CustomStringConvertible {
    /// The HTTP status: 400, 401, 403, 500 or 503.
    public let status: Int
    /// The challenges, in the order of their `WWW-Authenticate` fields (none for 500 and 503).
    public private(set) var challenges: [ResourceChallenge]
    /// The nonce to send in `DPoP-Nonce`, if the server requires one.
    public let dpopNonce: String?
    /// Why the token was refused, for logs (never for the client: the challenges say what it may know).
    public let cause: OIDCError

    /// The refusal of the request with `requestHeaders` for `error`: the one table of the access-token paths.
    /// - Parameters:
    ///   - error: the validation error.
    ///   - requestHeaders: the refused request's header fields (its `Authorization` scheme picks the challenge).
    ///   - requiredScopes: the scopes the resource requires (`scope` of the challenge).
    ///   - dpopAlgorithms: `algs` of the `DPoP` challenge (``DPoPProofValidator/challengeAlgorithms``).
    ///   - dpopNonce: the nonce the server requires in proofs, if any: sent in `DPoP-Nonce`, and a proof
    ///     without it is answered with `use_dpop_nonce`.
    ///   - realm: `realm`, if any.
    package init(
        error: OIDCError, requestHeaders: HeaderFields, requiredScopes: Set<String> = [], dpopAlgorithms: [String],
        dpopNonce: String? = nil, realm: String? = nil
    ) {
        self.dpopNonce = dpopNonce
        self.cause = error
        func challenge(
            _ scheme: AuthorizationScheme, _ code: ResourceChallenge.ErrorCode?, _ text: String? = nil,
            scope: Set<String> = []
        ) -> ResourceChallenge {
            ResourceChallenge(scheme: scheme, error: code, errorDescription: text, scope: scope, realm: realm, algorithms: dpopAlgorithms)
        }
        let used = Self.scheme(of: requestHeaders)
        switch error.code {
        case .missingBearerToken:
            status = 401
            challenges = [challenge(.bearer, nil, scope: requiredScopes), challenge(.dpop, nil)]
        case .invalidBearerRequest:
            status = 400
            challenges = [challenge(used, .invalidRequest, error.reason)]
        case .insufficientScope, .insufficientAuthorizationDetails:
            status = 403
            challenges = [challenge(used, .insufficientScope, error.reason, scope: requiredScopes)]
        case .dpopProofNonce where dpopNonce != nil:
            status = 401
            challenges = [challenge(.dpop, .useDPoPNonce, "the DPoP proof must carry the nonce in DPoP-Nonce")]
        case _ where Self.isProofError(error.code):
            status = 401
            challenges = [challenge(.dpop, .invalidDPoPProof, error.reason)]
        case .dpopBoundTokenAsBearer:
            status = 401
            challenges = [
                challenge(.bearer, .invalidToken, "the access token is DPoP-bound: present it with the DPoP scheme and a proof"),
                challenge(.dpop, nil),
            ]
        case .dpopTokenNotBound:
            status = 401
            challenges = [challenge(.dpop, .invalidToken, "the access token is not DPoP-bound")]
        case .certificateBoundToken:
            status = 401
            challenges = [challenge(used, .invalidToken, "the access token is bound to a client certificate")]
        case _ where error.category == .unavailable:  // the provider, not the token: retry later
            status = 503
            challenges = []
        case _ where error.category == .configuration:
            status = 500
            challenges = []
        default:
            status = 401
            let invalid = challenge(used, .invalidToken, ResourceChallenge.publicDescription(of: error))
            challenges = used == .bearer ? [invalid, challenge(.dpop, nil)] : [invalid]
        }
    }

    /// This refusal with `resource_metadata="URL"` (RFC 9728 §5.1) in every challenge, so a client that has
    /// no token yet (or the wrong one) can find the authorization servers of this resource.
    public func advertising(resourceMetadata url: URL) -> AccessTokenRefusal {
        var refusal = self
        refusal.challenges = challenges.map { $0.advertising(resourceMetadata: url) }
        return refusal
    }

    /// The response header fields: one `WWW-Authenticate` per challenge, then `DPoP-Nonce` when set.
    public var headers: HeaderFields {
        var headers = HeaderFields()
        for challenge in challenges { headers.add("WWW-Authenticate", challenge.headerValue) }
        if let dpopNonce { headers.add("DPoP-Nonce", dpopNonce) }
        return headers
    }

    /// The error code of the first challenge (e.g. for a JSON body), or `nil` when it has none.
    public var error: ResourceChallenge.ErrorCode? { challenges.first?.error }

    /// The JSON body, `{"error":"..."}`: the first challenge's error code; `unauthorized` for a challenge without one,
    /// `temporarily_unavailable` for 503, `server_error` for 500 (RFC 6749 §5.2 names).
    public var body: [UInt8] {
        let code: String
        switch status {
        case 503: code = "temporarily_unavailable"
        case 500: code = "server_error"
        default: code = error?.rawValue ?? "unauthorized"
        }
        return Array("{\"error\":\"\(code)\"}".utf8)
    }

    /// e.g. `401 DPoP error="invalid_dpop_proof", ...`.
    public var description: String { "\(status) " + challenges.map(\.headerValue).joined(separator: " | ") }

    /// Refusals are equal when they answer the same: status, challenges and nonce (``cause`` aside).
    public static func == (lhs: AccessTokenRefusal, rhs: AccessTokenRefusal) -> Bool {
        lhs.status == rhs.status && lhs.challenges == rhs.challenges && lhs.dpopNonce == rhs.dpopNonce
    }

    /// Hashes what `==` compares.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(status)
        hasher.combine(challenges)
        hasher.combine(dpopNonce)
    }

    /// The DPoP proof codes answered with `invalid_dpop_proof`.
    static func isProofError(_ code: OIDCError.Code) -> Bool {
        code.rawValue.hasPrefix("dpop_proof_") || code == .dpopReplayCheckFailed || code == .replayCacheFull
    }

    /// The scheme the request used: from its `Authorization` field (also when malformed), else `Bearer`.
    static func scheme(of headers: HeaderFields) -> AuthorizationScheme {
        guard let value = headers.values(for: "Authorization").first?.lowercased() else { return .bearer }
        return value == "dpop" || value.hasPrefix("dpop ") ? .dpop : .bearer
    }
}

extension AccessTokenValidator {
    /// The refusal of a request this validator refused with `error`, with `algs` from ``proofs``.
    /// - Parameters:
    ///   - error: what ``validate(method:url:headers:requiredScopes:dpopNonce:clientCertificate:)`` threw.
    ///   - requestHeaders: the refused request's header fields.
    ///   - requiredScopes: the scopes the resource requires.
    ///   - dpopNonce: the nonce this server requires in proofs, if any.
    ///   - realm: `realm`, if any.
    package func refusal(
        for error: OIDCError, requestHeaders: HeaderFields, requiredScopes: Set<String> = [],
        dpopNonce: String? = nil, realm: String? = nil
    ) -> AccessTokenRefusal {
        AccessTokenRefusal(
            error: error, requestHeaders: requestHeaders, requiredScopes: requiredScopes,
            dpopAlgorithms: proofs.challengeAlgorithms, dpopNonce: dpopNonce, realm: realm)
    }
}
