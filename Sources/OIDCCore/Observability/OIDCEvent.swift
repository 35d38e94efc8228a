#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// One thing the toolkit did: a provider call, a refresh, a key-set fetch, a refused token.
///
/// An event never carries a token, an authorization code, a secret, a key or a full URL:
/// ``origin`` is `scheme://host[:port]` only, and ``outcome`` names a failure by its stable
/// error code. It is safe to log or count as it is; ``detail`` (set only for a failed fetch of a user- or
/// remote-chosen URL) is for the application's logs, not for labels or for the user who chose the URL.
public struct OIDCEvent: Sendable, Hashable {
    /// What happened.
    public struct Kind: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
        /// A stable, dotted name such as `token.request`; use it as a metric or log label.
        public let rawValue: String
        /// A kind named `rawValue`.
        public init(rawValue: String) { self.rawValue = rawValue }
        /// The stable name.
        public var description: String { rawValue }

        /// A request to the token endpoint (``OIDCEvent/grantType`` says which grant).
        public static let tokenRequest = Kind(rawValue: "token.request")
        /// A session refreshed its tokens (``OIDCEvent/grantType`` `refresh_token`). With a coordinated
        /// store whose tokens another replica had already refreshed, ``refreshAwaited`` comes first.
        public static let refresh = Kind(rawValue: "session.refresh")
        /// A session (or a client-credentials token source) waited for another replica's or task's
        /// refresh and used its result instead of calling the provider.
        public static let refreshAwaited = Kind(rawValue: "session.refresh_awaited")
        /// A session ended: its tokens were cleared (``OIDCEvent/outcome`` carries the cause's code).
        public static let loggedOut = Kind(rawValue: "session.logged_out")
        /// A discovery document was fetched.
        public static let discovery = Kind(rawValue: "discovery.fetch")
        /// A JWK Set was fetched.
        public static let keySetFetched = Kind(rawValue: "keyset.fetch")
        /// A JWK Set was fetched again because a token named an unknown `kid` (key rotation).
        public static let keySetRefetchedForUnknownKey = Kind(rawValue: "keyset.refetch_unknown_kid")
        /// A refetch for an unknown `kid` was not made: the cache is cooling down.
        public static let keySetCoolingDown = Kind(rawValue: "keyset.cool_down")
        /// An ID Token was validated (success) or refused (failure with its code).
        public static let idTokenValidation = Kind(rawValue: "id_token.validation")
        /// An access token was validated or refused at a resource server.
        public static let accessTokenValidation = Kind(rawValue: "access_token.validation")
        /// A logout token was validated or refused.
        public static let logoutTokenValidation = Kind(rawValue: "logout_token.validation")
        /// A DPoP proof was accepted or refused at a resource server.
        public static let dpopProofValidation = Kind(rawValue: "dpop_proof.validation")
        /// A request was retried once with the server's DPoP nonce.
        public static let dpopNonceRetry = Kind(rawValue: "dpop.nonce_retry")
        /// A call to the UserInfo endpoint.
        public static let userInfo = Kind(rawValue: "userinfo.request")
        /// A call to an introspection endpoint.
        public static let introspection = Kind(rawValue: "introspection.request")
        /// A call to a revocation endpoint.
        public static let revocation = Kind(rawValue: "revocation.request")
        /// Any other provider call (PAR, CIBA, device authorization, registration).
        public static let providerCall = Kind(rawValue: "provider.call")
        /// A fetch of a Token Status List (``StatusListCache``).
        public static let statusListFetched = Kind(rawValue: "status_list.fetch")
        /// A login was started without PKCE because the client opted out (`OIDCClient.Configuration.optOutOfPKCE`).
        public static let pkceOmitted = Kind(rawValue: "login.pkce_omitted")
    }

    /// How it ended.
    public enum Outcome: Sendable, Hashable {
        /// It succeeded.
        case success
        /// It failed; `code` is the error's stable code (e.g. `invalid_grant`, `expired`).
        case failure(code: String)
    }

    /// What happened.
    public var kind: Kind
    /// How it ended.
    public var outcome: Outcome
    /// `scheme://host[:port]` of the endpoint involved, when there was one; never a path or query.
    public var origin: String?
    /// The grant type of a token request (`authorization_code`, `refresh_token`, ...).
    public var grantType: String?
    /// How long it took, when it was timed.
    public var duration: Duration?
    /// For a fetch of a URL that a user or a remote party chose (WebFinger, protected resource metadata): why it
    /// failed, in words the error's ``OIDCError/reason`` does not carry — the fetch policy's full diagnosis
    /// (``RemoteFetchPolicy/Refusal``, with any resolved address) or a short, redacted excerpt of an unusable
    /// answer. Meant for the application's own logs; it may quote the remote party, so never show it to the user
    /// who supplied the URL. `nil` for every other event.
    public var detail: String?

    /// An event. `origin` should come from ``OIDCEvent/origin(of:)``, which keeps nothing but the origin.
    public init(
        kind: Kind, outcome: Outcome, origin: String? = nil, grantType: String? = nil, duration: Duration? = nil,
        detail: String? = nil
    ) {
        self.kind = kind
        self.outcome = outcome
        self.origin = origin
        self.grantType = grantType
        self.duration = duration
        self.detail = detail
    }

    /// `scheme://host[:port]` of `url`: no user, path, query or fragment.
    public static func origin(of url: URL) -> String? {
        guard let scheme = url.scheme?.lowercased(), let host = url.host?.lowercased() else { return nil }
        let shownHost = host.contains(":") && !host.hasPrefix("[") ? "[\(host)]" : host
        return url.port.map { "\(scheme)://\(shownHost):\($0)" } ?? "\(scheme)://\(shownHost)"
    }
}
