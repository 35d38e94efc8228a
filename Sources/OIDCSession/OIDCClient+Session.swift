import OIDC

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension OIDCClient: TokenRefresher {
    /// The `refresh_token` grant with the client's token-type check; a returned ID Token is left to the session's
    /// ``/OIDC/RefreshedIDTokenPolicy`` (``session(tokens:configuration:)`` gives it the client's own).
    public func refreshTokens(using refreshToken: String) async throws -> TokenResponse {
        try await refreshGrant(refreshToken)
    }
}

extension OIDCClient {
    /// A session that calls the configuration's origins with the user's tokens and refreshes them through this client.
    ///
    /// A refreshed ID Token is validated and checked against the previous one (OpenID Connect Core §12.2) by
    /// `OIDCClient.refreshedIDTokens`, unless the configuration names another policy. The configuration's `nil`
    /// transport, clock and observer are this client's: a transport that presents a client certificate (RFC 8705)
    /// sends a certificate-bound token over TLS with that certificate. With a DPoP binding on the client
    /// (``/OIDC/OIDCClient/Configuration/dpop``) the tokens go out as `Authorization: DPoP` with a fresh proof.
    /// - Parameters:
    ///   - tokens: the tokens of a login just finished, saved to the configuration's store first; `nil` resumes
    ///     from the store.
    ///   - configuration: the origins, the store and the session's other settings.
    /// - Throws: ``/OIDCCore/OIDCError`` `insecure_url` for an origin that is neither `https` nor loopback `http`, before
    ///   the store is touched; the store's errors.
    public func session(tokens: TokenResponse? = nil, configuration: AuthenticatedSession.Configuration) async throws
        -> AuthenticatedSession
    {
        _ = try Origin.checked(configuration.allowedOrigins)  // before anything is saved
        var current = tokens
        if let tokens { try await configuration.store?.save(tokens) } else { current = try await configuration.store?.load() }
        return try AuthenticatedSession(
            tokens: current, renewal: .refreshToken(self),
            configuration: configuration.filled(
                transport: transport, clock: self.configuration.clock,
                observer: self.configuration.observer,
                refreshedIDTokens: refreshedIDTokens))
    }
}
