import JOSE

/// Every error code of `OIDCCore` (what every role shares), in one place, each with the category an application
/// branches on (``OIDCError/Category``). The strings are stable: they are the API.
extension OIDCError.Code {
    // MARK: invalidInput

    /// The JWT VC issuer metadata (draft-ietf-oauth-sd-jwt-vc) is not usable: not a JSON object, no `issuer` or
    /// another issuer than the credential's, both or neither of `jwks` and `jwks_uri`, a `jwks` that is not a JWK Set.
    public static let vcIssuerMetadataInvalid = OIDCError.Code("vc_issuer_metadata_invalid", .invalidInput)
    /// The JWT VC issuer metadata or its `jwks_uri` is on a host the ``RemoteFetchPolicy`` refuses; nothing was sent.
    public static let vcIssuerHostRefused = OIDCError.Code("vc_issuer_host_refused", .invalidInput)

    /// The JWK Set document is not a JSON object with a `keys` array.
    public static let jwksInvalidDocument = OIDCError.Code("jwks_invalid_document", .invalidInput)
    /// The protected resource metadata's `resource` is not the resource identifier the client used (RFC 9728 §3.3).
    public static let resourceMetadataMismatch = OIDCError.Code("resource_metadata_mismatch", .invalidInput)
    /// A `resource_metadata` URL is on another origin than the resource (RFC 9728 §7.3, §7.7).
    public static let resourceMetadataOriginMismatch = OIDCError.Code("resource_metadata_origin_mismatch", .invalidInput)
    /// The protected resource metadata URL, or the authorization server picked from any the metadata lists, is on
    /// a host the ``RemoteFetchPolicy`` refuses (internal address, reserved name, port other than 443); nothing was sent there.
    public static let resourceMetadataHostRefused = OIDCError.Code("resource_metadata_host_refused", .invalidInput)
    /// None of the authorization servers a protected resource lists is one the client may use (RFC 9728 §7.6).
    public static let noTrustedAuthorizationServer = OIDCError.Code("no_trusted_authorization_server", .invalidInput)
    /// An `authorization_details` value is not an array of JSON objects each with a `type` string (RFC 9396 §2),
    /// or does not encode or decode as the caller's type.
    public static let invalidAuthorizationDetails = OIDCError.Code("invalid_authorization_details", .invalidInput)
    /// The discovery document is not a JSON object, or a field has the wrong type.
    public static let discoveryInvalidDocument = OIDCError.Code("discovery_invalid_document", .invalidInput)
    /// A required metadata field is missing.
    public static let discoveryMissingField = OIDCError.Code("discovery_missing_field", .invalidInput)
    /// The document's `issuer` is not exactly the requested issuer.
    public static let discoveryIssuerMismatch = OIDCError.Code("discovery_issuer_mismatch", .invalidInput)
    /// Entra ID: the token's tenant (`tid`) is missing, malformed, not admitted by the endpoint, or not on the allow-list.
    public static let tenantNotAllowed = OIDCError.Code("tenant_not_allowed", .invalidInput)
    /// Google: the token's hosted domain (`hd`) is missing or not on the allow-list.
    public static let hostedDomainNotAllowed = OIDCError.Code("hosted_domain_not_allowed", .invalidInput)
    /// The endpoint answered with a body that is neither the expected JSON nor an OAuth error (HTML page, garbage).
    public static let invalidEndpointResponse = OIDCError.Code("invalid_endpoint_response", .invalidInput)
    /// The endpoint answered with an empty body where content was required.
    public static let emptyEndpointResponse = OIDCError.Code("empty_endpoint_response", .invalidInput)
    /// The endpoint answered with a redirect; token and userinfo requests never follow one.
    public static let unexpectedRedirect = OIDCError.Code("unexpected_redirect", .invalidInput)
    /// The access token was refused (401 with a Bearer challenge) at a protected resource or userinfo.
    public static let invalidToken = OIDCError.Code("invalid_token", .invalidInput)
    /// The ID Token is not a well-formed compact JWS with a JSON object payload.
    public static let malformedIDToken = OIDCError.Code("malformed_id_token", .invalidInput)
    /// A claim has the wrong JSON type (the error's reason names the claim).
    public static let claimTypeMismatch = OIDCError.Code(JOSEError.Code.claimTypeMismatch, .invalidInput)
    /// The token uses the unsecured algorithm `none`.
    public static let unsecuredToken = OIDCError.Code("unsecured_token", .invalidInput)
    /// The token's `alg` is not supported by this library.
    public static let unsupportedAlgorithm = OIDCError.Code(JOSEError.Code.unsupportedAlgorithm, .invalidInput)
    /// The token's `alg` is not among the allowed algorithms, or the key does not admit it.
    public static let algorithmNotAllowed = OIDCError.Code(JOSEError.Code.algorithmNotAllowed, .invalidInput)
    /// No key verifies the token: none has its `kid`, or none fits its algorithm.
    public static let signingKeyNotFound = OIDCError.Code("signing_key_not_found", .invalidInput)
    /// The token has no `kid` and several keys fit its algorithm.
    public static let ambiguousSigningKey = OIDCError.Code("ambiguous_signing_key", .invalidInput)
    /// The key set or key cannot be used for verification (weak, `use: enc`, mixed set).
    public static let unusableSigningKey = OIDCError.Code("unusable_signing_key", .invalidInput)
    /// The token's `kid` names a key of the issuer's JWK Set whose type (`kty`, curve, `AKP` algorithm) this library
    /// does not support: that key was skipped, the rest of the set stays usable.
    public static let unsupportedKeyType = OIDCError.Code(JOSEError.Code.unsupportedKeyType, .invalidInput)
    /// The token's algorithm (ML-DSA) is implemented but the libcrypto this process runs on does not provide it.
    public static let algorithmUnavailable = OIDCError.Code(JOSEError.Code.algorithmUnavailable, .invalidInput)
    /// The signature does not verify.
    public static let invalidSignature = OIDCError.Code(JOSEError.Code.invalidSignature, .invalidInput)
    /// The token header is unacceptable (e.g. an unknown `crit` extension).
    public static let invalidIDTokenHeader = OIDCError.Code("invalid_id_token_header", .invalidInput)
    /// `iss` is not the expected issuer.
    public static let issuerMismatch = OIDCError.Code(JOSEError.Code.issuerMismatch, .invalidInput)
    /// `aud` does not contain the client id.
    public static let audienceMismatch = OIDCError.Code(JOSEError.Code.audienceMismatch, .invalidInput)
    /// The token has expired (`exp`, with the leeway).
    public static let expired = OIDCError.Code(JOSEError.Code.expired, .invalidInput)
    /// `iat` is in the future (beyond the leeway).
    public static let issuedInFuture = OIDCError.Code(JOSEError.Code.issuedInFuture, .invalidInput)
    /// `nbf` is in the future (beyond the leeway).
    public static let notYetValid = OIDCError.Code(JOSEError.Code.notYetValid, .invalidInput)
    /// The WebFinger host, the issuer its answer names, or an endpoint of that issuer's discovery document is on a
    /// host the ``RemoteFetchPolicy`` refuses (internal address, reserved name, port other than 443); nothing was sent there.
    public static let webFingerHostRefused = OIDCError.Code("webfinger_host_refused", .invalidInput)
    /// Text is not valid percent-encoded UTF-8.
    public static let invalidPercentEncoding = OIDCError.Code("invalid_percent_encoding", .invalidInput)
    /// The JWT's `typ` header is not the one its kind requires (`at+jwt` for RFC 9068 access
    /// tokens, `logout+jwt` for logout tokens, `token-introspection+jwt` for introspection answers),
    /// or an introspection answer's `token_type` is not an access token's
    /// (`TokenIntrospector.accessTokenTypes`).
    public static let unexpectedTokenType = OIDCError.Code("unexpected_token_type", .invalidInput)
    /// The token is not a well-formed signed JWT (segments, Base64URL, JSON, header).
    public static let malformedJWT = OIDCError.Code("malformed_jwt", .invalidInput)
    /// A claim an RFC 9068 access token must carry is missing (`member` is in the reason).
    public static let missingAccessTokenClaim = OIDCError.Code("missing_access_token_claim", .invalidInput)
    /// A claim a back-channel logout token must carry (`iat`, `jti`, `events`) is missing
    /// (the claim is named in the reason); never reported as an access-token claim.
    public static let missingLogoutTokenClaim = OIDCError.Code("missing_logout_token_claim", .invalidInput)
    /// The introspection answer is not a usable RFC 7662 response (or its JWT form does not verify).
    public static let invalidIntrospectionResponse = OIDCError.Code("invalid_introspection_response", .invalidInput)
    /// A back-channel logout token breaks a rule of Back-Channel Logout 1.0 §2.6 (the reason names which).
    public static let invalidLogoutToken = OIDCError.Code("invalid_logout_token", .invalidInput)
    /// A logout token's `jti` was already seen within the replay window.
    public static let replayedLogoutToken = OIDCError.Code("replayed_logout_token", .invalidInput)

    // MARK: providerRefused

    /// The token, userinfo or revocation endpoint answered with an OAuth error (`oauthError` says which).
    public static let oauthError = OIDCError.Code("oauth_error", .providerRefused)
    /// The provider refused a dynamic registration or a client management request (RFC 7591 §3.2.2,
    /// RFC 7592 §2): ``OIDCError/oauthError`` holds its error code (e.g. `invalid_redirect_uri`,
    /// `invalid_client_metadata`, `invalid_software_statement`, `unapproved_software_statement`,
    /// or `invalid_token` for a refused registration access token).
    public static let registrationRefused = OIDCError.Code("registration_refused", .providerRefused)

    // MARK: unavailable

    /// A Token Status List could not be fetched: no HTTP answer (draft-ietf-oauth-status-list §8).
    public static let statusListTransportFailed = OIDCError.Code("status_list_transport_failed", .unavailable)
    /// A Token Status List URL answered with a status other than 200, or with a body too large.
    public static let statusListHTTPStatus = OIDCError.Code("status_list_http_status", .unavailable)
    /// The status list token is not usable: not a signed JWT of `typ` `statuslist+jwt` from the credential issuer's
    /// keys, expired, for another URI, or with a malformed list (the JOSE reason in ``OIDCError/joseError``). The
    /// credential's status is then unknown.
    public static let statusListInvalid = OIDCError.Code("status_list_invalid", .unavailable)

    /// The JWK Set request got no HTTP response.
    public static let jwksTransportFailed = OIDCError.Code("jwks_transport_failed", .unavailable)
    /// The JWK Set was answered with a status other than 200.
    public static let jwksHTTPStatus = OIDCError.Code("jwks_http_status", .unavailable)
    /// The replay cache has no room for this token's identifier in its scope (the proof key's or the
    /// issuer's share is full of live entries): the token is refused without being called a replay.
    /// The same scope's fresh identifiers pass again once its older entries expire; other scopes are unaffected.
    public static let replayCacheFull = OIDCError.Code("replay_cache_full", .unavailable)
    /// The discovery request got no HTTP response.
    public static let discoveryTransportFailed = OIDCError.Code("discovery_transport_failed", .unavailable)
    /// The discovery document was answered with a status other than 200.
    public static let discoveryHTTPStatus = OIDCError.Code("discovery_http_status", .unavailable)
    /// The endpoint answered with a 5xx status and no OAuth error.
    public static let endpointServerError = OIDCError.Code("endpoint_server_error", .unavailable)
    /// The endpoint answered with an unexpected status and no OAuth error.
    public static let unexpectedEndpointStatus = OIDCError.Code("unexpected_endpoint_status", .unavailable)
    /// No HTTP response: timeout, connection failure (`transportError` says which).
    public static let transport = OIDCError.Code("transport", .unavailable)

    // MARK: configuration

    /// A Token Status List URL is on a host the ``RemoteFetchPolicy`` refuses, or is not https; nothing was sent.
    public static let statusListHostRefused = OIDCError.Code("status_list_host_refused", .configuration)

    /// The provider publishes no `jwks_uri`.
    public static let jwksURIMissing = OIDCError.Code("jwks_uri_missing", .configuration)
    /// The issuer (or an endpoint) is not an absolute URL this toolkit accepts.
    public static let invalidIssuerURL = OIDCError.Code("invalid_issuer_url", .configuration)
    /// `http` for a host that is not a loopback address: only `https` is allowed.
    public static let insecureURL = OIDCError.Code("insecure_url", .configuration)
    /// A ``RemoteFetchPolicy/HostPort`` is not `HOST:PORT` with a port from 1 to 65535.
    public static let invalidFetchPolicyHost = OIDCError.Code("invalid_fetch_policy_host", .configuration)
    /// A tenant or hosted-domain allow-list was given empty: "any" must be said by name
    /// (``EntraTenants/anyTenant``, ``GoogleHostedDomains/anyHostedDomain``), never implied by an empty list.
    public static let emptyAllowList = OIDCError.Code("empty_allow_list", .configuration)
    /// A client authentication was configured with values it cannot work with (e.g. Apple's client secret).
    public static let invalidClientConfiguration = OIDCError.Code("invalid_client_configuration", .configuration)
    /// The token is an access token for another API that no third party can verify (a Microsoft Graph token).
    public static let unverifiableAccessToken = OIDCError.Code("unverifiable_access_token", .configuration)
    /// A token request could not be built (e.g. an extra parameter would override a standard one).
    public static let invalidTokenRequest = OIDCError.Code("invalid_token_request", .configuration)
    /// The provider publishes no `registration_endpoint`, or the registration has no
    /// `registration_client_uri` and `registration_access_token` to manage it with (RFC 7592).
    public static let registrationNotSupported = OIDCError.Code("registration_not_supported", .configuration)
    /// The client metadata to register is unusable before anything is sent (e.g. a private key in
    /// `jwks`, no redirect URI for a client that logs users in).
    public static let invalidClientMetadata = OIDCError.Code("invalid_client_metadata", .configuration)
    /// The redirect URI is not an absolute URI without a fragment.
    public static let invalidRedirectURI = OIDCError.Code("invalid_redirect_uri", .configuration)
    /// The random generator failed to produce a state, nonce or code verifier.
    public static let randomGenerationFailed = OIDCError.Code("random_generation_failed", .configuration)
    /// A request needing a retry had a one-shot body that cannot be sent again.
    public static let bodyNotReplayable = OIDCError.Code("body_not_replayable", .configuration)
}
