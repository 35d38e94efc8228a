#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import OIDC

extension OIDCClient: TokenRefresher {
    /// The `refresh_token` grant with the client's token-type check. A returned ID Token is left to the
    /// session's `RefreshedIDTokenPolicy`: ``session(tokens:store:origins:proactiveRefreshMargin:refreshedIDTokens:refreshBackoff:)`` gives it
    /// `OIDCClient.refreshedIDTokens` (validated, §12.2 checked).
    public func refreshTokens(using refreshToken: String) async throws -> TokenResponse {
        try await refreshGrant(refreshToken)
    }
}

extension OIDCClient {
    /// An authenticated session on this client: the access token only to `origins` — as `Authorization: Bearer`,
    /// or, when the client has a DPoP binding (``OIDC/OIDCClient/Configuration/dpop``), as `Authorization: DPoP`
    /// with a fresh proof per request (``DPoPSessionTransport``) — refresh once on a 401 through this client (token type checked; a refreshed ID Token validated and checked against the
    /// previous one by `OIDCClient.refreshedIDTokens`, the same rule as `OIDCClient.refresh(_:scope:)`).
    /// Requests and refreshes go through this client's ``OIDC/OIDCClient/transport``: with a transport that presents a
    /// client certificate (`LibSSLTransport`, RFC 8705), a certificate-bound access token (`cnf.x5t#S256`) reaches the
    /// APIs over TLS with the same certificate it is bound to.
    /// - Parameters:
    ///   - tokens: the tokens of a login just finished (saved to `store` first), or `nil` to resume from `store`.
    ///   - store: where the tokens live between requests and runs (`nil`: memory only).
    ///   - origins: the APIs that receive the access token (scheme, host and port compared exactly).
    ///   - proactiveRefreshMargin: refresh before sending when the access token expires within this many seconds
    ///     (at most half the token's lifetime; `nil`: only on a 401).
    ///   - refreshedIDTokens: what to do with an ID Token in a refresh answer; `nil` (default): this client's own
    ///     rule, `OIDCClient.refreshedIDTokens` (validated, OpenID Connect Core §12.2 checked). Name another policy
    ///     (e.g. `.validate(with:authTime: .unchanged)`, or the opt-out `.discardIDTokens`) to override it.
    ///   - refreshBackoff: seconds after a failed refresh during which no new refresh starts.
    /// - Throws: ``OIDC/OIDCError`` `.insecureURL` / `.invalidIssuerURL` for an origin that is not `https`
    ///   (or `http` on a loopback host), checked before the store is touched; the store's errors.
    ///
    /// The session's ``AuthenticatedSession/events`` report refreshes, failed refreshes and the logout with its cause,
    /// and the client's ``OIDC/OIDCClient/Configuration/observer`` receives the same as ``OIDC/OIDCEvent``s.
    public func session(tokens: TokenResponse? = nil, store: (any TokenStore)? = nil, origins: [URL],
                        proactiveRefreshMargin: TimeInterval? = 30, refreshedIDTokens: RefreshedIDTokenPolicy? = nil,
                        refreshBackoff: TimeInterval = 10) async throws -> AuthenticatedSession {
        _ = try Origin.checked(origins)  // before anything is saved
        var current = tokens
        if let tokens { try await store?.save(tokens) } else { current = try await store?.load() }
        // DPoP-bound tokens (the client's token-type check admits no other with a binding) go out as
        // `Authorization: DPoP` with a fresh proof, never as Bearer: the initializer's one rule finds the binding here.
        return try AuthenticatedSession(tokens: current, refresher: self, transport: transport, allowedOrigins: origins, store: store,
                                    refreshedIDTokens: refreshedIDTokens ?? self.refreshedIDTokens,
                                    proactiveRefreshMargin: proactiveRefreshMargin, refreshBackoff: refreshBackoff,
                                    clock: configuration.clock, observer: configuration.observer)
    }
}
