import JOSE
import OIDCCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension ResourceGuard {
    /// Everything a ``ResourceGuard`` is built from; only ``issuer`` and ``audience`` have no default.
    ///
    /// The defaults are the safe ones: RFC 9068 JWT access tokens with the issuer's discovered keys, `Bearer` and
    /// `DPoP` with replay protection (an ``/OIDCCore/InMemoryReplayCache``), 60 s of leeway, the system clock,
    /// ``/OIDCTLSTransport/LibSSLTransport`` for discovery, keys and introspection, and a cache of verified tokens
    /// (``ResourceGuard/VerifiedTokenCache``: 10 000 tokens, 60 s at most).
    public struct Configuration: Sendable {
        /// The authorization server's issuer identifier: `iss` must equal it; discovery starts from it.
        public var issuer: String
        /// This resource server's identifier: a JWT's `aud`, and an introspection answer's `aud` when it has one,
        /// must contain it.
        public var audience: String
        /// Which tokens are accepted: JWT access tokens (default), introspection, or both.
        public var tokens: Tokens = .jwt
        /// Which JWT access tokens are accepted: RFC 9068's (default) or a provider's.
        public var profile: AccessTokenProfile = .rfc9068
        /// Where the issuer's signing keys come from; `nil` (default): its discovered `jwks_uri`, through a key cache.
        public var keys: IssuerKeys? = nil
        /// Where DPoP proofs' `jti` values are remembered (RFC 9449 §11.1); default: a fresh ``/OIDCCore/InMemoryReplayCache``.
        /// Replicas behind one load balancer share one cache.
        public var dpopReplays: DPoPProofValidator.ReplayProtection = .cache(InMemoryReplayCache())
        /// The DPoP proof algorithms accepted (`algs` of the challenge); HMAC entries are dropped.
        public var dpopAlgorithms: Set<JWSAlgorithm> = IssuerKeys.asymmetricAlgorithms
        /// How old a DPoP proof's `iat` may be, in seconds.
        public var dpopMaximumAge: TimeInterval = 300
        /// The verified-token cache (default: ``ResourceGuard/VerifiedTokenCache/defaultCapacity`` tokens, each kept
        /// at most ``ResourceGuard/VerifiedTokenCache/defaultMaximumAge`` seconds); ``ResourceGuard/VerifiedTokenCache/off``
        /// verifies every token's signature on every request.
        public var verifiedTokenCache: VerifiedTokenCache = VerifiedTokenCache()
        /// Allowed clock skew for every time rule, in seconds.
        public var leeway: TimeInterval = 60
        /// The current time.
        public var clock: @Sendable () -> Date = { Date() }
        /// Receives one event per token checked, introspection call, proof, discovery and key fetch; `nil` (default): none.
        public var observer: (any OIDCObserver)? = nil
        /// What fetches discovery, keys and introspection answers; `nil` (default): a ``/OIDCTLSTransport/LibSSLTransport``.
        public var transport: (any HTTPTransport)? = nil
        /// `realm` of every challenge, if any.
        public var realm: String? = nil
        /// This resource's RFC 9728 metadata URL: when set, every challenge carries it as `resource_metadata`.
        public var resourceMetadata: URL? = nil

        /// A configuration for `issuer` and `audience` with the defaults.
        public init(issuer: String, audience: String) {
            self.issuer = issuer
            self.audience = audience
        }
    }

    /// The kinds of access token a ``ResourceGuard`` accepts.
    public enum Tokens: Sendable {
        /// RFC 9068 JWT access tokens, verified locally with the issuer's keys.
        case jwt
        /// Any token, sent to the issuer's introspection endpoint (RFC 7662, or RFC 9701 signed answers).
        case introspection(Introspection)
        /// A token that is a compact JWS is verified locally; any other is introspected.
        case jwtOrIntrospection(Introspection)
    }

    /// How a ``ResourceGuard`` introspects tokens (RFC 7662 §2).
    public struct Introspection: Sendable {
        /// How this resource server authenticates at the endpoint.
        public var authentication: ClientAuthentication
        /// The endpoint; `nil` (default): the issuer's discovered `introspection_endpoint`.
        public var endpoint: URL? = nil
        /// Ask for signed answers (RFC 9701) verified with the issuer's keys: `.required` refuses plain JSON,
        /// `.preferredButJSONAccepted` is the named opt-out; `nil` (default): plain JSON answers.
        public var signedAnswers: TokenIntrospector.JWTResponse.Requirement? = nil
        /// This resource server's keys for signed answers encrypted to it (RFC 9701 §5); default none: refused.
        public var decryptionKeys: JWEDecryptionKeys = .none
        /// The registered `introspection_encrypted_response_alg`/`_enc`: when set, a signed answer that is not
        /// encrypted with exactly these is refused.
        public var encryption: ResponseEncryption? = nil
        /// Where answers are kept (never past the token's `exp`); `nil` (default): none.
        public var cache: IntrospectionCache? = nil
        /// The answer's `aud` rule; `nil` (default): it must contain the configuration's audience when present.
        /// ``TokenIntrospector/AudienceRule/anyAudience`` is the named opt-out.
        public var audience: TokenIntrospector.AudienceRule? = nil

        /// Introspection authenticating with `authentication`, with the defaults.
        public init(authentication: ClientAuthentication) {
            self.authentication = authentication
        }
    }
}
