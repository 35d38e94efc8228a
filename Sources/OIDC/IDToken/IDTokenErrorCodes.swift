import JOSE

/// Error codes of ID Token parsing and validation (OpenID Connect Core §3.1.3.7,
/// §3.2.2.11, §3.3.2.12, §12.2). Each rule has its own code.
extension OIDCError.Code {
    /// The ID Token is not a well-formed compact JWS with a JSON object payload.
    public static let malformedIDToken = OIDCError.Code(rawValue: "malformed_id_token")
    /// A claim has the wrong JSON type (the error's reason names the claim).
    public static let claimTypeMismatch = OIDCError.Code(rawValue: "claim_type_mismatch")
    /// The token uses the unsecured algorithm `none`.
    public static let unsecuredToken = OIDCError.Code(rawValue: "unsecured_token")
    /// The token's `alg` is not supported by this library.
    public static let unsupportedAlgorithm = OIDCError.Code(rawValue: "unsupported_algorithm")
    /// The token's `alg` is not among the allowed algorithms, or the key does not admit it.
    public static let algorithmNotAllowed = OIDCError.Code(rawValue: "algorithm_not_allowed")
    /// No key verifies the token: none has its `kid`, or none fits its algorithm.
    public static let signingKeyNotFound = OIDCError.Code(rawValue: "signing_key_not_found")
    /// The token has no `kid` and several keys fit its algorithm.
    public static let ambiguousSigningKey = OIDCError.Code(rawValue: "ambiguous_signing_key")
    /// The key set or key cannot be used for verification (weak, `use: enc`, mixed set).
    public static let unusableSigningKey = OIDCError.Code(rawValue: "unusable_signing_key")
    /// The signature does not verify.
    public static let invalidSignature = OIDCError.Code(rawValue: "invalid_signature")
    /// An HS* token but no client secret was configured.
    public static let clientSecretRequired = OIDCError.Code(rawValue: "client_secret_required")
    /// The token header is unacceptable (e.g. an unknown `crit` extension).
    public static let invalidIDTokenHeader = OIDCError.Code(rawValue: "invalid_id_token_header")

    /// `iss` is missing.
    public static let missingIssuer = OIDCError.Code(rawValue: "missing_issuer")
    /// `iss` is not the expected issuer.
    public static let issuerMismatch = OIDCError.Code(rawValue: "issuer_mismatch")
    /// `sub` is missing.
    public static let missingSubject = OIDCError.Code(rawValue: "missing_subject")
    /// `aud` is missing.
    public static let missingAudience = OIDCError.Code(rawValue: "missing_audience")
    /// `aud` does not contain the client id.
    public static let audienceMismatch = OIDCError.Code(rawValue: "audience_mismatch")
    /// Several audiences but no `azp`.
    public static let missingAuthorizedParty = OIDCError.Code(rawValue: "missing_authorized_party")
    /// `azp` is not the client id.
    public static let authorizedPartyMismatch = OIDCError.Code(rawValue: "authorized_party_mismatch")
    /// `exp` is missing.
    public static let missingExpiry = OIDCError.Code(rawValue: "missing_expiry")
    /// The token has expired (`exp`, with the leeway).
    public static let expired = OIDCError.Code(rawValue: "expired")
    /// `iat` is missing.
    public static let missingIssuedAt = OIDCError.Code(rawValue: "missing_issued_at")
    /// `iat` is in the future (beyond the leeway).
    public static let issuedInFuture = OIDCError.Code(rawValue: "issued_in_future")
    /// `iat` is older than the configured maximum token age.
    public static let issuedTooLongAgo = OIDCError.Code(rawValue: "issued_too_long_ago")
    /// `nbf` is in the future (beyond the leeway).
    public static let notYetValid = OIDCError.Code(rawValue: "not_yet_valid")
    /// A nonce was sent but the token has none.
    public static let missingNonce = OIDCError.Code(rawValue: "missing_nonce")
    /// `nonce` is not the one sent.
    public static let nonceMismatch = OIDCError.Code(rawValue: "nonce_mismatch")
    /// `at_hash` is required for this response type and missing.
    public static let missingAccessTokenHash = OIDCError.Code(rawValue: "missing_at_hash")
    /// `at_hash` does not match the access token.
    public static let accessTokenHashMismatch = OIDCError.Code(rawValue: "at_hash_mismatch")
    /// `c_hash` is required for this response type and missing.
    public static let missingCodeHash = OIDCError.Code(rawValue: "missing_c_hash")
    /// `c_hash` does not match the authorization code.
    public static let codeHashMismatch = OIDCError.Code(rawValue: "c_hash_mismatch")
    /// `auth_time` is required (`max_age` sent, or requested as essential) and missing.
    public static let missingAuthTime = OIDCError.Code(rawValue: "missing_auth_time")
    /// The end-user authenticated longer ago than `max_age` allows.
    public static let authenticationTooOld = OIDCError.Code(rawValue: "authentication_too_old")
    /// A claim the client required (``IDTokenExpectations/requiredClaims``, e.g. every essential claim
    /// under ``OIDCClient/Configuration/EssentialClaims/requireEvery``) is missing or `null`; the reason names it.
    public static let missingEssentialClaim = OIDCError.Code(rawValue: "missing_essential_claim")
    /// `acr` was requested as essential and is missing.
    public static let missingACR = OIDCError.Code(rawValue: "missing_acr")
    /// `acr` is not one of the requested `acr_values`.
    public static let acrNotSatisfied = OIDCError.Code(rawValue: "acr_not_satisfied")

    /// A refreshed ID Token's `iss` differs from the original's (OIDC Core §12.2).
    public static let refreshIssuerChanged = OIDCError.Code(rawValue: "refresh_issuer_changed")
    /// A refreshed ID Token's `sub` differs from the original's.
    public static let refreshSubjectChanged = OIDCError.Code(rawValue: "refresh_subject_changed")
    /// A refreshed ID Token's `aud` differs from the original's.
    public static let refreshAudienceChanged = OIDCError.Code(rawValue: "refresh_audience_changed")
    /// A refreshed ID Token's `azp` differs from the original's.
    public static let refreshAuthorizedPartyChanged = OIDCError.Code(rawValue: "refresh_authorized_party_changed")
    /// A refreshed ID Token's `auth_time` is earlier than the original's, or later when the policy
    /// requires it unchanged (``RefreshAuthTimeRule``), or present when the original had none.
    public static let refreshAuthTimeChanged = OIDCError.Code(rawValue: "refresh_auth_time_changed")
    /// A refreshed ID Token carries a `nonce` other than the original's (OIDC Core §12.2: if present,
    /// it must be the original's).
    public static let refreshNonceChanged = OIDCError.Code(rawValue: "refresh_nonce_changed")

    /// A foreign token's `iss` is not in the trusted list.
    public static let untrustedIssuer = OIDCError.Code(rawValue: "untrusted_issuer")
}
