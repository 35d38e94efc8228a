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
        // Not run.
        RPToolCase(id: "rp-userinfo-bearer-body", expect: .notRun("the client sends the access token in the Authorization header only")),
    ]
}
