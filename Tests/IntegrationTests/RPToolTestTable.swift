// The OpenID Foundation RP test ids the toolkit runs against the RP test tool (Tests/RPTool), and what
// each must end in. One table: RPToolTests runs it, RPToolReadmeTests keeps the README's table equal to it.
// To add a test id: add a row (its options below) with the outcome it must have; an id the toolkit cannot
// run yet is a `.notRun` row saying why.
import OIDC

/// What the toolkit must do with one RP test id.
enum RPToolExpectation: Sendable, Equatable {
    /// The login (and whatever the row asks after it) succeeds.
    case accepted
    /// The toolkit refuses, with this ``OIDCError`` code (or, for a provider's OAuth error, its OAuth code);
    /// "A or B" when the tool's own randomness decides which of two refusals applies.
    case refused(String)
    /// Not run yet; the reason is shown in the README.
    case notRun(String)
}

/// The identifier a WebFinger test starts from.
enum WebFingerForm: Sendable {
    /// `acct:<rp_id>.<test_id>@127.0.0.1:PORT`
    case acct
    /// `https://127.0.0.1:PORT/<rp_id>/<test_id>`
    case url
}

/// How a row sends its authorization request as a request object (``OIDCClient/startLogin(_:requestObject:)``).
struct RequestObjectCase: Sendable {
    /// Signed with RS256 by a key in the client's registered `jwks`; otherwise `alg: none`.
    var signed: Bool
    /// Encrypted to the provider's current RSA encryption key with RSA-OAEP + A128CBC-HS256.
    var encrypted: Bool
    /// Passed by reference: written to the tool's request-object host (`RPTOOL_OBJECTS_DIR`), sent as `request_uri`.
    var byReference: Bool
}

/// What a row does after its login at the provider's `end_session_endpoint` (RP-Initiated Logout), and how the
/// provider tells the client.
enum LogoutCase: Sendable {
    /// The post-logout redirect is checked (``OIDCClient/checkLogoutRedirect(_:postLogoutRedirectURI:state:)``); `state`:
    /// whether the logout URL sends one.
    case rpInitiated(state: Bool)
    /// A `backchannel_logout_uri` is registered; the logout token the tool POSTs there goes through
    /// ``OIDCClient/backChannelLogout(body:contentType:)``.
    case backChannel
    /// A `frontchannel_logout_uri` is registered; the URL of the tool's logout iframe goes through
    /// ``OIDCClient/frontChannelLogoutSessionID(_:)``.
    case frontChannel
}

/// One RP test id and how the client runs it.
struct RPToolCase: Sendable, CustomStringConvertible {
    var id: String
    var expect: RPToolExpectation
    var responseType: ResponseType = .code
    var responseMode: ResponseMode? = nil
    /// `token_endpoint_auth_method` to register (default: the provider's, `client_secret_basic`).
    var authMethod: String? = nil
    /// `id_token_signed_response_alg` to register (and the only ID Token algorithm accepted).
    var idTokenAlgorithm: String? = nil
    var scopes: [String] = ["openid"]
    /// A `claims` request parameter (JSON).
    var claims: String? = nil
    /// Call UserInfo after the login.
    var userInfo = false
    /// Logins in a row with the same client (key rotation happens between them).
    var logins = 1
    /// Claims that must be in UserInfo (when `userInfo`) or the ID Token otherwise.
    var requiredClaims: [String] = []
    /// Start from WebFinger (at the tool's TLS instance) with an identifier of this form instead of the issuer.
    var webFinger: WebFingerForm? = nil
    /// `id_token_encrypted_response_alg` and `_enc` to register, as "ALG ENC" (the client then refuses a plain ID Token).
    var idTokenEncryption: String? = nil
    /// `userinfo_signed_response_alg` to register (the client then refuses a JSON UserInfo).
    var userInfoSigningAlgorithm: String? = nil
    /// `userinfo_encrypted_response_alg` and `_enc` to register, as "ALG ENC".
    var userInfoEncryption: String? = nil
    /// Send the authorization request as a request object, this way.
    var requestObject: RequestObjectCase? = nil
    /// Send UserInfo's access token in the form body (``OIDCClient/Configuration/userInfoTokenInFormBody``).
    var userInfoInBody = false
    /// Resolve UserInfo's aggregated and distributed claims, trusting the tool's own keys; the first unresolved claim's
    /// reason is the outcome.
    var resolvesClaims = false
    /// `prompt` and `max_age` of the authorization request.
    var prompt: [Prompt] = []
    var maxAge: Int? = nil
    /// Log out after the login, this way.
    var logout: LogoutCase? = nil
    /// Register an `initiate_login_uri`, have the tool start the login there (OpenID Connect Core §4) and read that request
    /// with ``OIDCClient/thirdPartyLoginRequest(_:redirectURI:scopes:allowedTargets:)``.
    var thirdPartyInitiated = false
    /// Shown in the README next to the outcome.
    var note = ""

    var description: String { id }
}

enum RPToolTable {
    static let cases: [RPToolCase] = [
        // Basic and Config: discovery, registration, code flow.
        RPToolCase(id: "rp-registration-dynamic", expect: .accepted, note: "the client registers itself (RFC 7591) before every test"),
        RPToolCase(id: "rp-discovery-openid-configuration", expect: .accepted),
        RPToolCase(id: "rp-discovery-jwks_uri-keys", expect: .accepted),
        RPToolCase(id: "rp-discovery-issuer-not-matching-config", expect: .refused("discovery_issuer_mismatch")),
        RPToolCase(id: "rp-response_type-code", expect: .accepted),
        RPToolCase(
            id: "rp-scope-userinfo-claims", expect: .accepted, scopes: ["openid", "email", "phone", "address", "profile"],
            userInfo: true, requiredClaims: ["email", "phone_number", "address", "name"]),
        RPToolCase(id: "rp-nonce-invalid", expect: .refused("nonce_mismatch")),
        RPToolCase(
            id: "rp-nonce-unless-code-flow", expect: .accepted, responseType: .codeIDToken,
            note: "hybrid `code id_token`: the tool offers no `code` here"),
        RPToolCase(id: "rp-token_endpoint-client_secret_basic", expect: .accepted, authMethod: "client_secret_basic"),
        RPToolCase(id: "rp-token_endpoint-client_secret_post", expect: .accepted, authMethod: "client_secret_post"),
        RPToolCase(id: "rp-token_endpoint-client_secret_jwt", expect: .accepted, authMethod: "client_secret_jwt"),
        RPToolCase(id: "rp-token_endpoint-private_key_jwt", expect: .accepted, authMethod: "private_key_jwt"),
        RPToolCase(id: "rp-id_token-sig-rs256", expect: .accepted, idTokenAlgorithm: "RS256"),
        RPToolCase(id: "rp-id_token-sig-es256", expect: .accepted, idTokenAlgorithm: "ES256"),
        RPToolCase(id: "rp-id_token-sig-hs256", expect: .accepted, idTokenAlgorithm: "HS256"),
        RPToolCase(
            id: "rp-id_token-sig-none", expect: .refused("unsecured_token"), idTokenAlgorithm: "none",
            note: "alg none is refused by design"),
        RPToolCase(
            id: "rp-id_token-bad-sig-rs256", expect: .refused("malformed_id_token or invalid_signature"), idTokenAlgorithm: "RS256",
            note: "the tool alters the signature's text at random: usually into non-canonical base64url, refused before "
                + "the signature check, else a well-formed wrong signature"),
        RPToolCase(
            id: "rp-id_token-bad-sig-es256", expect: .refused("malformed_id_token or invalid_signature"), idTokenAlgorithm: "ES256",
            note: "as for RS256"),
        RPToolCase(
            id: "rp-id_token-bad-sig-hs256", expect: .refused("malformed_id_token or invalid_signature"), idTokenAlgorithm: "HS256",
            note: "as for RS256"),
        RPToolCase(id: "rp-id_token-aud", expect: .refused("audience_mismatch")),
        RPToolCase(id: "rp-id_token-iat", expect: .refused("missing_issued_at")),
        RPToolCase(id: "rp-id_token-sub", expect: .refused("missing_subject")),
        RPToolCase(id: "rp-id_token-issuer-mismatch", expect: .refused("issuer_mismatch")),
        RPToolCase(id: "rp-id_token-kid-absent-single-jwks", expect: .accepted),
        RPToolCase(
            id: "rp-id_token-kid-absent-multiple-jwks", expect: .refused("ambiguous_signing_key"),
            note: "several keys and no `kid`: OpenID Connect Core §10.1 requires one"),
        RPToolCase(id: "rp-userinfo-bearer-header", expect: .accepted, userInfo: true),
        RPToolCase(id: "rp-userinfo-bad-sub-claim", expect: .refused("userinfo_subject_mismatch"), userInfo: true),
        RPToolCase(
            id: "rp-claims_request-id_token", expect: .accepted, claims: #"{"id_token":{"email":{"essential":true}}}"#,
            requiredClaims: ["email"]),
        RPToolCase(
            id: "rp-claims_request-userinfo", expect: .accepted, claims: #"{"userinfo":{"email":{"essential":true}}}"#,
            userInfo: true, requiredClaims: ["email"]),
        RPToolCase(id: "rp-key-rotation-op-sign-key", expect: .accepted, logins: 2),
        RPToolCase(id: "rp-key-rotation-op-sign-key-native", expect: .accepted, logins: 2),
        // Form Post.
        RPToolCase(id: "rp-response_mode-form_post", expect: .accepted, responseMode: .formPost),
        // Hybrid (front-channel ID Token: c_hash / at_hash).
        RPToolCase(id: "rp-response_type-code+id_token", expect: .accepted, responseType: .codeIDToken),
        RPToolCase(id: "rp-id_token-bad-c_hash", expect: .refused("c_hash_mismatch"), responseType: .codeIDToken),
        RPToolCase(id: "rp-id_token-missing-c_hash", expect: .refused("missing_c_hash"), responseType: .codeIDToken),
        RPToolCase(id: "rp-response_type-code+token", expect: .accepted, responseType: .codeToken),
        RPToolCase(id: "rp-response_type-code+id_token+token", expect: .accepted, responseType: .codeIDTokenToken),
        RPToolCase(id: "rp-id_token-bad-at_hash", expect: .refused("at_hash_mismatch"), responseType: .codeIDTokenToken),
        RPToolCase(id: "rp-id_token-missing-at_hash", expect: .refused("missing_at_hash"), responseType: .codeIDTokenToken),
        // Dynamic: WebFinger (over https, at the tool's TLS instance), then the login.
        RPToolCase(id: "rp-discovery-webfinger-acct", expect: .accepted, webFinger: .acct),
        RPToolCase(id: "rp-discovery-webfinger-url", expect: .accepted, webFinger: .url),
        RPToolCase(
            id: "rp-discovery-webfinger-http-href", expect: .refused("webfinger_insecure_issuer"), webFinger: .acct,
            note: "an http issuer is refused even on 127.0.0.1"),
        RPToolCase(id: "rp-discovery-webfinger-unknown-member", expect: .accepted, webFinger: .acct),
        // Signed and encrypted responses (the client's RSA encryption key in its registered jwks).
        RPToolCase(id: "rp-userinfo-sig", expect: .accepted, userInfo: true, userInfoSigningAlgorithm: "RS256"),
        RPToolCase(id: "rp-userinfo-enc", expect: .accepted, userInfo: true, userInfoEncryption: "RSA-OAEP A128CBC-HS256"),
        RPToolCase(
            id: "rp-userinfo-sig+enc", expect: .accepted, userInfo: true, userInfoSigningAlgorithm: "RS256",
            userInfoEncryption: "RSA-OAEP A128CBC-HS256"),
        RPToolCase(
            id: "rp-id_token-sig+enc-a128kw", expect: .accepted, idTokenAlgorithm: "RS256", idTokenEncryption: "A128KW A256CBC-HS512",
            note: "the key derived from the client secret (OpenID Connect Core §10.2)"),
        RPToolCase(
            id: "rp-id_token-sig+enc", expect: .refused("id_token_decryption_failed"), idTokenAlgorithm: "RS256",
            idTokenEncryption: "RSA1_5 A128CBC-HS256", note: "the tool encrypts with RSA1_5 only, refused by design"),
        // Request objects (OpenID Connect Core §6): by reference from the tool's request-object host; encrypted with
        // RSA-OAEP where the tool names RSA1_5 (refused by design; the tool decrypts either).
        RPToolCase(
            id: "rp-request_uri-unsigned", expect: .accepted,
            requestObject: RequestObjectCase(signed: false, encrypted: false, byReference: true)),
        RPToolCase(
            id: "rp-request_uri-sig", expect: .accepted,
            requestObject: RequestObjectCase(signed: true, encrypted: false, byReference: true)),
        RPToolCase(
            id: "rp-request_uri-enc", expect: .accepted,
            requestObject: RequestObjectCase(signed: false, encrypted: true, byReference: true),
            note: "RSA-OAEP + A128CBC-HS256 (the tool names RSA1_5, refused by design)"),
        RPToolCase(
            id: "rp-request_uri-sig+enc", expect: .accepted,
            requestObject: RequestObjectCase(signed: true, encrypted: true, byReference: true),
            note: "RS256, then RSA-OAEP + A128CBC-HS256"),
        RPToolCase(
            id: "rp-key-rotation-op-enc-key", expect: .accepted, logins: 2,
            requestObject: RequestObjectCase(signed: true, encrypted: true, byReference: false),
            note: "the tool replaces its encryption keys after each request; the second request object is encrypted "
                + "to the new key (the client fetches the provider's keys for every encrypted request object)"),
        // UserInfo: the access token in the form body (RFC 6750 §2.2) when asked.
        RPToolCase(id: "rp-userinfo-bearer-body", expect: .accepted, userInfo: true, userInfoInBody: true),
        // Aggregated and distributed claims (OpenID Connect Core §5.6.2), resolved trusting the tool's own keys.
        RPToolCase(
            id: "rp-claims-aggregated", expect: .refused("unsecured_token"), userInfo: true, resolvesClaims: true,
            note: "the tool signs its aggregated claims with alg none: `eye_color` and `shoe_size` stay unresolved with that reason"),
        RPToolCase(
            id: "rp-claims-distributed", expect: .refused("missing_issuer"), userInfo: true, resolvesClaims: true,
            note: "fetched from the tool's claims endpoint with the given access token and verified with its key (RS256); the JWT "
                + "carries no `iss`, so no claims provider is named and `age` stays unresolved with that reason"),
        // Form Post error (prompt=none, max_age=0).
        RPToolCase(
            id: "rp-response_mode-form_post-error", expect: .refused("authorization_error"), responseMode: .formPost, prompt: [.none], maxAge: 0,
            note: "the error arrives by form post and is read with its `state` checked; `oauthError` holds the provider's code"),
        // RP-Initiated Logout (the post-logout redirect read from the tool's logout page).
        RPToolCase(
            id: "rp-init-logout", expect: .accepted, logout: .rpInitiated(state: false),
            note: "`id_token_hint` and `post_logout_redirect_uri`; the redirect comes back to it"),
        RPToolCase(
            id: "rp-init-logout-no-state", expect: .refused("state_mismatch"), logout: .rpInitiated(state: true),
            note: "a `state` is sent and the redirect carries none"),
        RPToolCase(
            id: "rp-init-logout-other-state", expect: .refused("state_mismatch"), logout: .rpInitiated(state: true),
            note: "oidctest 0.8.2 does not implement the other-state behaviour: its redirect carries no `state` at all, refused the same way"),
        // Back-Channel Logout: the tool POSTs a logout token to a receiver on 127.0.0.1.
        RPToolCase(
            id: "rp-backchannel-rpinitlogout-all", expect: .accepted, logout: .backChannel,
            note: "the tool POSTs the logout token without a Content-Type: that request is refused (`invalid_logout_request`, "
                + "Back-Channel Logout 1.0 §2.5) and the token it carries is checked on its own, in this row and the next seven"),
        RPToolCase(
            id: "rp-backchannel-rpinitlogout-lt-alg-none", expect: .refused("unsupported_algorithm"), logout: .backChannel,
            note: "`alg: none` is no algorithm the key set admits"),
        RPToolCase(id: "rp-backchannel-rpinitlogout-lt-no-event", expect: .refused("missing_logout_token_claim"), logout: .backChannel),
        RPToolCase(id: "rp-backchannel-rpinitlogout-lt-with-nonce", expect: .refused("invalid_logout_token"), logout: .backChannel),
        RPToolCase(
            id: "rp-backchannel-rpinitlogout-lt-wrong-alg", expect: .refused("algorithm_not_allowed"), idTokenAlgorithm: "RS256", logout: .backChannel,
            note: "the client registers RS256 for ID Tokens (so for logout tokens); the tool signs with ES256"),
        RPToolCase(
            id: "rp-backchannel-rpinitlogout-lt-wrong-aud", expect: .accepted, logout: .backChannel,
            note: "oidctest 0.8.2 logs a wrong `aud` but signs the token with the client id as `aud`, so the token is valid"),
        RPToolCase(id: "rp-backchannel-rpinitlogout-lt-wrong-event", expect: .refused("invalid_logout_token"), logout: .backChannel),
        RPToolCase(id: "rp-backchannel-rpinitlogout-lt-wrong-issuer", expect: .refused("issuer_mismatch"), logout: .backChannel),
        // Front-Channel Logout: the URL of the tool's logout iframe.
        RPToolCase(
            id: "rp-frontchannel-rpinitlogout", expect: .accepted, logout: .frontChannel,
            note: "`iss` is the issuer and `sid` is read; the tool's ID Tokens carry no `sid`, so the app's route is tested against glewlwyd"),
        RPToolCase(
            id: "rp-frontchannel-rpinitlogout-wrong-issuer", expect: .refused("front_channel_logout_issuer_mismatch"), logout: .frontChannel),
        RPToolCase(
            id: "rp-frontchannel-rpinitlogout-wrong-sid", expect: .accepted, logout: .frontChannel,
            note: "the `sid` read (`another_sid`) matches no session: nothing is ended"),
        // Third-party-initiated login (OpenID Connect Core §4).
        RPToolCase(
            id: "rp-3rd_party-init-login", expect: .accepted, thirdPartyInitiated: true,
            note: "the tool redirects to the registered `initiate_login_uri` as it is, so the client registers it with `iss` in its query"),
    ]
}
