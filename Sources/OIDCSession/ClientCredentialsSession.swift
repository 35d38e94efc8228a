#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import OIDC

/// A service's own session: ``AuthenticatedSession`` over a ``OIDC/ClientCredentialsTokenSource``,
/// so calls made as the client itself get the same handling as a user's — the token only to
/// the allowed origins, one shared renewal on a 401 and one retry, proactive renewal before expiry.
///
/// The client credentials grant issues no refresh token: the session's "refresh" is a new
/// grant through the source (``OIDC/ClientCredentialsTokenSource/refreshNow()``), and the tokens
/// the session holds carry ``ClientCredentialsRenewal/marker`` in place of a refresh token.
public struct ClientCredentialsRenewal: TokenRefresher {
    /// The value the session holds as its "refresh token": not a secret, never sent anywhere.
    public static let marker = "client_credentials"

    /// The source that obtains the tokens.
    public let source: ClientCredentialsTokenSource

    /// Wraps a source.
    public init(source: ClientCredentialsTokenSource) { self.source = source }

    /// A new client credentials token (the argument, the marker, is ignored).
    public func refreshTokens(using refreshToken: String) async throws -> TokenResponse {
        var fresh = try await source.refreshNow()
        fresh.refreshToken = Self.marker
        return fresh
    }
}

extension AuthenticatedSession {
    /// A session for calls made as the client itself, with a token from `source` (obtained now). When the
    /// source's ``OIDC/TokenClient`` has a DPoP binding, requests carry `Authorization: DPoP`
    /// and a fresh proof (``DPoPSessionTransport``), never the bound token as Bearer.
    /// - Parameters:
    ///   - source: the client-credentials token source; a 401 makes it fetch one new token.
    ///   - transport: what sends the requests.
    ///   - allowedOrigins: the only origins (scheme, host, port) that receive the token.
    ///   - proactiveRefreshMargin: renew before sending when the token expires within this many
    ///     seconds (default: the source's own margin), but at most half the token's lifetime —
    ///     the source's rule, so a token shorter than the margin is not renewed on every request.
    ///   - clock: the time source for expiry and back-off.
    ///   The session records its events to the observer of the source's ``OIDC/TokenClient``.
    /// - Throws: ``OIDC/OIDCError`` `.insecureURL` / `.invalidIssuerURL` for an origin that is not `https` (or `http`
    ///   on a loopback host), before any token is requested; the source's first token request's error.
    public static func clientCredentials(source: ClientCredentialsTokenSource, transport: any HTTPTransport, allowedOrigins: [URL],
                                         proactiveRefreshMargin: TimeInterval? = nil,
                                         clock: @escaping @Sendable () -> Date = { Date() }) async throws -> AuthenticatedSession {
        _ = try Origin.checked(allowedOrigins)  // before a token is requested
        var tokens = try await source.token()
        tokens.refreshToken = ClientCredentialsRenewal.marker
        // A client with a DPoP binding gets DPoP-bound tokens: the initializer's one rule finds the binding in the
        // renewal and sends them as `Authorization: DPoP` with a proof.
        return try AuthenticatedSession(tokens: tokens, refresher: ClientCredentialsRenewal(source: source), transport: transport,
                                    allowedOrigins: allowedOrigins, store: nil, refreshedIDTokens: .refuseIDTokens,
                                    proactiveRefreshMargin: proactiveRefreshMargin ?? source.refreshMargin, refreshBackoff: 10,
                                    clock: clock, observer: source.client.observer)
    }
}
