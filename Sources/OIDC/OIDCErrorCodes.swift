import JOSE
import OIDCCore

/// Every error code of `OIDC` (the relying party), in one place, each with the category an application
/// branches on (``/OIDCCore/OIDCError/Category``). The strings are stable: they are the API.
extension OIDCError.Code {
    // MARK: invalidInput

    /// A token-exchange answer lacks `issued_token_type` or has one of the wrong type (RFC 8693 §2.2.1).
    public static let invalidTokenExchangeResponse = OIDCError.Code("invalid_token_exchange_response", .invalidInput)
    /// The token response lacks a required member or has one of the wrong type.
    public static let invalidTokenResponse = OIDCError.Code("invalid_token_response", .invalidInput)
    /// UserInfo's `sub` differs from the ID Token's (OpenID Connect Core §5.3.2).
    public static let userInfoSubjectMismatch = OIDCError.Code("userinfo_subject_mismatch", .invalidInput)
    /// `iss` is missing.
    public static let missingIssuer = OIDCError.Code("missing_issuer", .invalidInput)
    /// `sub` is missing.
    public static let missingSubject = OIDCError.Code("missing_subject", .invalidInput)
    /// `aud` is missing.
    public static let missingAudience = OIDCError.Code("missing_audience", .invalidInput)
    /// Several audiences but no `azp`.
    public static let missingAuthorizedParty = OIDCError.Code("missing_authorized_party", .invalidInput)
    /// `azp` is not the client id.
    public static let authorizedPartyMismatch = OIDCError.Code("authorized_party_mismatch", .invalidInput)
    /// `exp` is missing.
    public static let missingExpiry = OIDCError.Code("missing_expiry", .invalidInput)
    /// `iat` is missing.
    public static let missingIssuedAt = OIDCError.Code("missing_issued_at", .invalidInput)
    /// `iat` is older than the configured maximum token age.
    public static let issuedTooLongAgo = OIDCError.Code("issued_too_long_ago", .invalidInput)
    /// A nonce was sent but the token has none.
    public static let missingNonce = OIDCError.Code("missing_nonce", .invalidInput)
    /// `nonce` is not the one sent.
    public static let nonceMismatch = OIDCError.Code("nonce_mismatch", .invalidInput)
    /// `at_hash` is required for this response type and missing.
    public static let missingAccessTokenHash = OIDCError.Code("missing_at_hash", .invalidInput)
    /// `at_hash` does not match the access token.
    public static let accessTokenHashMismatch = OIDCError.Code("at_hash_mismatch", .invalidInput)
    /// `c_hash` is required for this response type and missing.
    public static let missingCodeHash = OIDCError.Code("missing_c_hash", .invalidInput)
    /// `c_hash` does not match the authorization code.
    public static let codeHashMismatch = OIDCError.Code("c_hash_mismatch", .invalidInput)
    /// `auth_time` is required (`max_age` sent, or requested as essential) and missing.
    public static let missingAuthTime = OIDCError.Code("missing_auth_time", .invalidInput)
    /// The end-user authenticated longer ago than `max_age` allows.
    public static let authenticationTooOld = OIDCError.Code("authentication_too_old", .invalidInput)
    /// A claim the client required (``IDTokenExpectations/requiredClaims``, e.g. every essential claim
    /// under ``OIDCClient/Configuration/EssentialClaims/requireEvery``) is missing or `null`; the reason names it.
    public static let missingEssentialClaim = OIDCError.Code("missing_essential_claim", .invalidInput)
    /// `acr` was requested as essential and is missing.
    public static let missingACR = OIDCError.Code("missing_acr", .invalidInput)
    /// `acr` is not one of the requested `acr_values`.
    public static let acrNotSatisfied = OIDCError.Code("acr_not_satisfied", .invalidInput)
    /// A refreshed ID Token's `iss` differs from the original's (OIDC Core §12.2).
    public static let refreshIssuerChanged = OIDCError.Code("refresh_issuer_changed", .invalidInput)
    /// A refreshed ID Token's `sub` differs from the original's.
    public static let refreshSubjectChanged = OIDCError.Code("refresh_subject_changed", .invalidInput)
    /// A refreshed ID Token's `aud` differs from the original's.
    public static let refreshAudienceChanged = OIDCError.Code("refresh_audience_changed", .invalidInput)
    /// A refreshed ID Token's `azp` differs from the original's.
    public static let refreshAuthorizedPartyChanged = OIDCError.Code("refresh_authorized_party_changed", .invalidInput)
    /// A refreshed ID Token's `auth_time` is earlier than the original's, or later when the policy
    /// requires it unchanged (``RefreshedIDTokenPolicy/AuthTimeRule``), or present when the original had none.
    public static let refreshAuthTimeChanged = OIDCError.Code("refresh_auth_time_changed", .invalidInput)
    /// A refreshed ID Token carries a `nonce` other than the original's (OIDC Core §12.2: if present,
    /// it must be the original's).
    public static let refreshNonceChanged = OIDCError.Code("refresh_nonce_changed", .invalidInput)
    /// A foreign token's `iss` is not in the trusted list.
    public static let untrustedIssuer = OIDCError.Code("untrusted_issuer", .invalidInput)
    /// A refresh response carried an ID Token, and the policy in use
    /// (``RefreshedIDTokenPolicy/refuseIDTokens``) accepts none: give a validator.
    public static let refreshIDTokenNotExpected = OIDCError.Code("refresh_id_token_not_expected", .invalidInput)
    /// A DPoP proof's target URL is not an absolute http(s) URL.
    public static let dpopInvalidTarget = OIDCError.Code("dpop_invalid_target", .invalidInput)
    /// A token response said `token_type: DPoP` although no DPoP proof was sent,
    /// or said `Bearer` where a DPoP-bound token was required.
    public static let dpopTokenTypeMismatch = OIDCError.Code("dpop_token_type_mismatch", .invalidInput)
    /// The pushed authorization request endpoint answered without a usable `request_uri` / `expires_in` (RFC 9126 §2.2).
    public static let invalidPushedAuthorizationResponse = OIDCError.Code("invalid_pushed_authorization_response", .invalidInput)
    /// The provider requires pushed authorization requests and a plain front-channel request was about to be made.
    public static let pushedAuthorizationRequired = OIDCError.Code("pushed_authorization_required", .invalidInput)
    /// The client registered encrypted ID Tokens and the ID Token is a plain JWS.
    public static let unencryptedIDToken = OIDCError.Code("unencrypted_id_token", .invalidInput)
    /// The encrypted ID Token cannot be decrypted (no fitting key, algorithms not the registered ones,
    /// authentication failed); ``/OIDCCore/OIDCError/joseError`` says why.
    public static let idTokenDecryptionFailed = OIDCError.Code("id_token_decryption_failed", .invalidInput)
    /// UserInfo arrived in another form than the one registered (JSON when a signed or encrypted
    /// answer was registered, a plain answer when an encrypted one was).
    public static let unexpectedUserInfoFormat = OIDCError.Code("unexpected_userinfo_format", .invalidInput)
    /// The encrypted UserInfo answer cannot be decrypted; ``/OIDCCore/OIDCError/joseError`` says why.
    public static let userInfoDecryptionFailed = OIDCError.Code("userinfo_decryption_failed", .invalidInput)
    /// The signed UserInfo answer does not verify with the provider's keys, or its `iss`/`aud` are not
    /// the provider's and the client's; ``/OIDCCore/OIDCError/joseError`` says why.
    public static let invalidUserInfoJWT = OIDCError.Code("invalid_userinfo_jwt", .invalidInput)
    /// The JARM response JWT is missing, cannot be decrypted, does not verify with the provider's keys, or
    /// its `iss`, `aud` or `exp` are not acceptable; ``/OIDCCore/OIDCError/joseError`` says why when JOSE refused it.
    public static let invalidAuthorizationResponseJWT = OIDCError.Code("invalid_authorization_response_jwt", .invalidInput)
    /// The token endpoint returned a `token_type` the client is not configured to use (RFC 6749 §7.1):
    /// only `Bearer` (compared case-insensitively) unless ``OIDCClient/Configuration/acceptedTokenTypes`` says otherwise.
    public static let unsupportedTokenType = OIDCError.Code("unsupported_token_type", .invalidInput)
    /// A login or refresh response that must carry an ID Token has none (OpenID Connect Core §3.1.3.3).
    public static let missingIDToken = OIDCError.Code("missing_id_token", .invalidInput)
    /// The front-channel and token-endpoint ID Tokens of a hybrid login name different issuers or subjects
    /// (OpenID Connect Core §3.3.3.6).
    public static let hybridIDTokenMismatch = OIDCError.Code("hybrid_id_token_mismatch", .invalidInput)
    /// The identifier given to WebFinger issuer discovery is not an `acct:` URI, an e-mail-like `user@host`, or an
    /// https URL (OpenID Connect Discovery §2.1; XRIs and other schemes are not supported).
    public static let webFingerInvalidIdentifier = OIDCError.Code("webfinger_invalid_identifier", .invalidInput)
    /// The WebFinger answer is unusable: not HTTP 200, not a JSON object, `links` not an array.
    public static let webFingerInvalidResponse = OIDCError.Code("webfinger_invalid_response", .invalidInput)
    /// The WebFinger answer names no issuer (no link with `rel` `http://openid.net/specs/connect/1.0/issuer`).
    public static let webFingerNoIssuer = OIDCError.Code("webfinger_no_issuer", .invalidInput)
    /// The issuer the WebFinger answer names is not an https URL (refused even on a loopback host: OpenID Connect
    /// Discovery §3 requires https issuers).
    public static let webFingerInsecureIssuer = OIDCError.Code("webfinger_insecure_issuer", .invalidInput)
    /// A registration or client management answer is unusable: not a JSON object, no `client_id`,
    /// a member of the wrong type, or another `client_id` than the one managed.
    public static let registrationInvalidResponse = OIDCError.Code("registration_invalid_response", .invalidInput)
    /// A CIBA or device authorization endpoint answered without the members it must send.
    public static let invalidDecoupledResponse = OIDCError.Code("invalid_decoupled_response", .invalidInput)
    /// The `user` field of a `form_post` answer is not the JSON object Apple documents.
    public static let malformedFormPostUser = OIDCError.Code("malformed_form_post_user", .invalidInput)
    /// The redirect's `state` is missing or differs from the request's.
    public static let stateMismatch = OIDCError.Code("state_mismatch", .invalidInput)
    /// The redirect's `iss` (RFC 9207) is missing where required or differs from the issuer.
    /// (Distinct from `issuerMismatch`, the ID Token's `iss` claim.)
    public static let responseIssuerMismatch = OIDCError.Code("response_issuer_mismatch", .invalidInput)
    /// The redirect URL's scheme, host, port or path differs from the request's redirect URI.
    public static let redirectURIMismatch = OIDCError.Code("redirect_uri_mismatch", .invalidInput)
    /// The response arrived in another place than the response mode says (query, fragment, form post).
    public static let responseModeMismatch = OIDCError.Code("response_mode_mismatch", .invalidInput)
    /// A parameter occurs more than once in the authorization response.
    public static let duplicateResponseParameter = OIDCError.Code("duplicate_parameter", .invalidInput)
    /// A parameter the response type requires is absent from the authorization response.
    public static let missingResponseParameter = OIDCError.Code("missing_parameter", .invalidInput)
    /// A response parameter has a malformed value, or is one the request did not ask for.
    public static let invalidResponseParameter = OIDCError.Code("invalid_response_parameter", .invalidInput)
    /// The response carries both an `error` and a result (`code`, `id_token` or `access_token`).
    public static let ambiguousResponse = OIDCError.Code("ambiguous_response", .invalidInput)
    /// The back-channel logout request body is not a form with exactly one `logout_token`.
    public static let invalidLogoutRequest = OIDCError.Code("invalid_logout_request", .invalidInput)
    /// An aggregated or distributed claim's source is unusable (OpenID Connect Core §5.6.2): `_claim_names` or
    /// `_claim_sources` malformed, a source missing, neither `JWT` nor `endpoint`, an answer that is not a JWT, or a
    /// JWT without the claim named.
    public static let invalidClaimSource = OIDCError.Code("invalid_claim_source", .invalidInput)
    /// A distributed claims endpoint is on a host the fetch policy refuses (``/OIDCCore/RemoteFetchPolicy``); nothing was sent.
    public static let claimSourceHostRefused = OIDCError.Code("claim_source_host_refused", .invalidInput)
    /// A third-party-initiated login request (OpenID Connect Core §4) has no `iss`, names another issuer than the
    /// client's, carries a parameter twice or is not valid form encoding.
    public static let invalidLoginInitiation = OIDCError.Code("invalid_login_initiation", .invalidInput)
    /// A third-party-initiated login request's `target_link_uri` is not under a target the application allows.
    public static let loginTargetNotAllowed = OIDCError.Code("login_target_not_allowed", .invalidInput)
    /// A front-channel logout request lacks `iss` or `sid`, carries one twice, or is not valid form encoding.
    public static let invalidFrontChannelLogout = OIDCError.Code("invalid_front_channel_logout", .invalidInput)
    /// A front-channel logout request's `iss` is not the client's issuer: no session is ended.
    public static let frontChannelLogoutIssuerMismatch = OIDCError.Code("front_channel_logout_issuer_mismatch", .invalidInput)

    // MARK: authenticateAgain

    /// A refresh answer was refused by a check of this client (its `token_type`, its ID Token, its
    /// form) after the provider had rotated the refresh token: the refresh token sent is spent at the
    /// provider and the new one is not used, so the grant is gone and the user must log in again.
    /// The reason names the check that refused; ``/OIDCCore/OIDCError/joseError`` is the check's.
    public static let refreshTokenSpent = OIDCError.Code("refresh_token_spent", .authenticateAgain)
    /// A pending login was started by another client or for another issuer than the one finishing it.
    public static let pendingLoginMismatch = OIDCError.Code("pending_login_mismatch", .authenticateAgain)

    // MARK: providerRefused

    /// The provider answered with an OAuth error; see ``/OIDCCore/OIDCError/oauthError``.
    public static let authorizationError = OIDCError.Code("authorization_error", .providerRefused)

    // MARK: unavailable

    /// No HTTP answer from `https://HOST/.well-known/webfinger`.
    public static let webFingerTransportFailed = OIDCError.Code("webfinger_transport_failed", .unavailable)
    /// No HTTP answer from the registration endpoint or `registration_client_uri`.
    public static let registrationTransportFailed = OIDCError.Code("registration_transport_failed", .unavailable)
    /// No HTTP answer from a distributed claims endpoint (OpenID Connect Core §5.6.2).
    public static let claimSourceTransportFailed = OIDCError.Code("claim_source_transport_failed", .unavailable)

    // MARK: configuration

    /// A `resource` value is not an absolute URI or has a fragment (RFC 8707 §2).
    public static let invalidResourceIndicator = OIDCError.Code("invalid_resource_indicator", .configuration)
    /// An HS* token but no client secret was configured.
    public static let clientSecretRequired = OIDCError.Code("client_secret_required", .configuration)
    /// A DPoP key or proof could not be made (public key, unsupported algorithm, signing failure).
    public static let dpopProofFailed = OIDCError.Code("dpop_proof_failed", .configuration)
    /// A request object could not be built or signed (RFC 9101).
    public static let requestObjectFailed = OIDCError.Code("request_object_failed", .configuration)
    /// The provider's metadata does not advertise the endpoint a call needs (e.g. `end_session_endpoint`).
    public static let endpointNotAdvertised = OIDCError.Code("endpoint_not_advertised", .configuration)
    /// A login (which needs an ID Token) was started with a client for an OAuth-only authorization server
    /// (``OIDCClient/ProviderKind/oauthAuthorizationServer``).
    public static let notAnOpenIDProvider = OIDCError.Code("not_an_openid_provider", .configuration)
    /// A CIBA or device authorization request could not be built (missing or conflicting hints, no `openid` scope).
    public static let invalidDecoupledRequest = OIDCError.Code("invalid_decoupled_request", .configuration)
    /// A value given to build an authorization request is unacceptable (empty client id,
    /// `prompt=none` combined with other prompts, negative `max_age`, a response mode the
    /// response type forbids, ...).
    public static let invalidRequestParameter = OIDCError.Code("invalid_request_parameter", .configuration)
    /// An additional parameter, or a query item already on the base URL, has the name of a
    /// parameter the request sets itself.
    public static let parameterCollision = OIDCError.Code("parameter_collision", .configuration)
    /// A parameter value is longer than the limit the caller stated for it.
    public static let parameterTooLong = OIDCError.Code("parameter_too_long", .configuration)
    /// The response type returns an ID Token from the authorization endpoint but the request has no nonce.
    public static let nonceRequired = OIDCError.Code("nonce_required", .configuration)
    /// The authorization endpoint (or app link) cannot carry an authorization request.
    public static let invalidAuthorizationEndpoint = OIDCError.Code("invalid_authorization_endpoint", .configuration)
    /// The `claims` request parameter is malformed.
    public static let invalidClaimsRequest = OIDCError.Code("invalid_claims_request", .configuration)
    /// A PKCE code verifier is not 43–128 characters of the RFC 7636 alphabet.
    public static let invalidCodeVerifier = OIDCError.Code("invalid_code_verifier", .configuration)
    /// A `state` or `nonce` value is empty or has forbidden characters.
    public static let invalidSecretValue = OIDCError.Code("invalid_secret_value", .configuration)
    /// FAPI 2.0: the authorization request is not pushed (PAR), or the provider has no PAR endpoint.
    public static let fapiPARRequired = OIDCError.Code("fapi_par_required", .configuration)
    /// FAPI 2.0: the response type is not `code`, or the response mode puts the response in the fragment.
    public static let fapiResponseTypeNotAllowed = OIDCError.Code("fapi_response_type_not_allowed", .configuration)
    /// FAPI 2.0: PKCE with S256 is not used.
    public static let fapiPKCERequired = OIDCError.Code("fapi_pkce_s256_required", .configuration)
    /// FAPI 2.0: the provider does not send RFC 9207 `iss` in authorization responses.
    public static let fapiIssuerParameterRequired = OIDCError.Code("fapi_iss_parameter_required", .configuration)
    /// FAPI 2.0: no sender constraint (DPoP) for the tokens.
    public static let fapiSenderConstraintRequired = OIDCError.Code("fapi_sender_constraint_required", .configuration)
    /// FAPI 2.0: the client authentication is not private_key_jwt.
    public static let fapiClientAuthenticationNotAllowed = OIDCError.Code("fapi_client_authentication_not_allowed", .configuration)
    /// FAPI 2.0: an algorithm (ID Token, client assertion, DPoP, request object) is not PS256, ES256 or EdDSA.
    public static let fapiAlgorithmNotAllowed = OIDCError.Code("fapi_algorithm_not_allowed", .configuration)
    /// FAPI 2.0: the clock-skew tolerance exceeds the profile's limit.
    public static let fapiClockSkewTooLarge = OIDCError.Code("fapi_clock_skew_too_large", .configuration)
}
