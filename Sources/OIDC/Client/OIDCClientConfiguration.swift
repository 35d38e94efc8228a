import JOSE

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension OIDCClient {
    /// Settings of an ``OIDCClient``; every default is the safe one.
    public struct Configuration: Sendable {
        /// The current time, for token expiry and ID Token time claims (inject a fixed clock in tests).
        public var clock: @Sendable () -> Date
        /// Allowed clock skew for the ID Token time claims, in seconds (default 60).
        public var leeway: TimeInterval
        /// `token_type` values the client can use, lowercased (RFC 6749 §7.1). Default: `bearer` only;
        /// a response of any other type is refused with ``OIDCCore/OIDCError/Code/unsupportedTokenType``.
        /// A type other than `bearer` and `dpop` listed here (a token exchange's `n_a`, RFC 8693 §2.2.1) is read
        /// by every grant, with or without DPoP, but a session never sends it: only Bearer and DPoP tokens go out.
        public var acceptedTokenTypes: Set<String>
        /// ID Token algorithms accepted; `nil` (default) means the provider's
        /// `id_token_signing_alg_values_supported`, or `RS256` when it advertises none.
        public var allowedAlgorithms: Set<JWSAlgorithm>?
        /// JWK Set cache timing.
        public var keyCache: JWKSetCache.Configuration
        /// The `aud` of `private_key_jwt` / `client_secret_jwt` assertions: the issuer (default) or, for a
        /// provider that insists on it, the URL of the endpoint called.
        public var assertionAudience: ClientAssertionAudience = .issuer
        /// Sign `private_key_jwt` / `client_secret_jwt` assertions with the header `typ: client-authentication+jwt`
        /// (draft-ietf-oauth-rfc7523bis §4) for a provider known to accept it, at every endpoint the client
        /// authenticates to (token, PAR, CIBA, device, introspection, revocation). The draft defines no metadata
        /// that announces it, so it is your choice; `false` (default): `typ: JWT`, which every provider reads.
        public var explicitlyTypedClientAssertions = false
        /// The DPoP binding (RFC 9449): when set, the code exchange, refresh and UserInfo carry proofs
        /// (through the client's ``TokenClient``), a pushed request carries `dpop_jkt`, and only `token_type` `DPoP`
        /// is accepted. `nil` (default): Bearer, and a `DPoP` token type is refused.
        public var dpop: DPoPBinding?
        /// Enforce the FAPI 2.0 Security Profile: every login is pushed, and nothing is sent that breaks the profile.
        ///
        /// The client's configuration is checked when the client is made, and each request when a login starts;
        /// every violation is a typed `fapi_*` error. Rules: PAR, `response_type=code` outside the fragment,
        /// S256 PKCE, RFC 9207 `iss`, DPoP, `private_key_jwt`, PS256/ES256/EdDSA, at most 60 s of leeway.
        /// A ``LoginRequest`` is pushed unless it says `push: .never`, which is then refused.
        public var fapi2Profile = false
        /// Send no PKCE (`code_challenge`) in logins: only for the rare provider that refuses a request carrying one.
        ///
        /// PKCE protects the code against injection and interception, so this opt-out weakens every login:
        /// `false` (default) sends S256 PKCE always. The FAPI 2.0 profile refuses it (`fapi_pkce_s256_required`
        /// when the client is made), and each login started without PKCE records an
        /// ``/OIDCCore/OIDCEvent/Kind/pkceOmitted`` event with the observer.
        public var optOutOfPKCE = false
        /// Call the provider's `mtls_endpoint_aliases` (RFC 8705 §5) although the client authenticates
        /// otherwise (e.g. `private_key_jwt` over a transport that presents a certificate, for
        /// certificate-bound access tokens). A client whose ``OIDCClient/authentication``
        /// `ClientAuthentication.usesMutualTLS` uses them in any case. Default `false`.
        public var usesMutualTLSEndpoints = false
        /// Refuse every authorization response without RFC 9207 `iss` (equal to the issuer), even when the
        /// provider's metadata does not advertise `authorization_response_iss_parameter_supported` — for a
        /// provider known to send it without saying so (glewlwyd 2.7.5 with `oauth-as-iss-id`). Only ever
        /// stricter: `false` (default) follows the metadata. Satisfies the FAPI 2.0 profile's `iss` rule.
        public var requireIssuerParameter = false
        /// Receives an ``/OIDCCore/OIDCEvent`` for each provider call (discovery, token requests by grant type,
        /// UserInfo, revocation, PAR / CIBA / device), key-set fetch, ID Token validation, DPoP nonce
        /// retry and, in sessions made by `OIDCClient.session(...)` (OIDCSession), each refresh and logout.
        /// `nil` (default): nothing is recorded.
        public var observer: (any OIDCObserver)? = nil
        /// The provider profile (``/OIDCCore/ProviderProfile``) whose documented departures from OpenID Connect are
        /// accepted at discovery and in ID Tokens, and nothing else; chosen by you, never guessed from a host.
        /// `nil` (default): every rule to the letter.
        public var profile: ProviderProfile? = nil

        /// The client's decryption keys (private keys, newest first, for rotation without downtime) for
        /// whatever the provider encrypts to the client: ID Tokens, UserInfo. The client secret of a
        /// `client_secret_*` authentication is added for symmetric key management (OpenID Connect Core §10.2).
        /// Default: none, and an encrypted response is refused.
        public var decryptionKeys: JWEDecryptionKeys = .none
        /// The registered `id_token_encrypted_response_alg`/`_enc`: when set, every ID Token (login, refresh,
        /// CIBA, device, hybrid front channel) must arrive encrypted with exactly these algorithms; a plain
        /// one is refused (``OIDCCore/OIDCError/Code/unencryptedIDToken``). `nil` (default): a plain ID Token, or one
        /// encrypted to ``decryptionKeys``.
        public var idTokenEncryption: ResponseEncryption? = nil
        /// The registered form of UserInfo answers (``UserInfoFormat``): JSON (default), signed, encrypted,
        /// or signed then encrypted. A form other than the registered one is refused
        /// (``OIDCCore/OIDCError/Code/unexpectedUserInfoFormat``).
        public var userInfoFormat: UserInfoFormat = .json
        /// Sends UserInfo's access token as the form parameter `access_token` of a POST (RFC 6750 §2.2) when `true`.
        /// Default `false`: the `Authorization: Bearer` header (RFC 6750 §2.1), the method every provider must accept.
        /// Refused (`invalid_request_parameter`) for a DPoP-bound client, whose proof binds the header.
        public var userInfoTokenInFormBody = false
        /// The registered JARM `authorization_encrypted_response_alg`/`_enc`: when set, a JARM response JWT
        /// must arrive encrypted with exactly these algorithms. `nil` (default): signed, or encrypted to
        /// ``decryptionKeys``.
        public var authorizationResponseEncryption: ResponseEncryption? = nil

        /// Which claims requested as essential (the `claims` parameter's `id_token` member) an ID Token
        /// must carry. OpenID Connect Core §5.5.1 lets a provider omit an essential claim it cannot
        /// give, so the default enforces only `acr` (against the requested values) and `auth_time`;
        /// ``EssentialClaims/requireEvery`` refuses a login whose ID Token lacks any of them
        /// (`missing_essential_claim`, naming it).
        public var essentialClaims: EssentialClaims = .acrAndAuthTimeOnly
        /// How back-channel logout tokens are checked by ``OIDCClient/backChannelLogout(body:contentType:)``.
        public var logoutTokens = LogoutTokens()

        /// The rule for essential claims; see ``essentialClaims``.
        public enum EssentialClaims: Sendable, Hashable {
            /// Only `acr` (one of the requested values) and `auth_time` are required when essential.
            case acrAndAuthTimeOnly
            /// Every claim requested as essential for the ID Token must be present and not `null`.
            case requireEvery
        }

        /// The defaults: system clock, 60 s leeway, `Bearer` tokens only, the provider's algorithms.
        /// - Parameters:
        ///   - clock: the current time.
        ///   - leeway: allowed clock skew in seconds.
        ///   - acceptedTokenTypes: `token_type` values the client uses (compared case-insensitively).
        ///   - allowedAlgorithms: ID Token algorithms; `nil` for the provider's.
        ///   - keyCache: JWK Set cache timing.
        public init(
            clock: @escaping @Sendable () -> Date = { Date() }, leeway: TimeInterval = 60,
            acceptedTokenTypes: Set<String> = ["bearer"], allowedAlgorithms: Set<JWSAlgorithm>? = nil,
            keyCache: JWKSetCache.Configuration = .default
        ) {
            self.clock = clock
            self.leeway = leeway
            self.acceptedTokenTypes = Set(acceptedTokenTypes.map { $0.lowercased() })
            self.allowedAlgorithms = allowedAlgorithms
            self.keyCache = keyCache
        }
    }
}
