import OIDC

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension AuthenticatedSession {
    /// A session for calls made as the client itself, renewed by a new client-credentials grant through `source`.
    ///
    /// The first token is requested now and saved to the configuration's store, if any. A 401 makes the source fetch one new token, shared by every request that
    /// failed with the old one; no refresh token is involved, and none is ever held or stored. When the source's
    /// client has a DPoP binding, requests carry `Authorization: DPoP` with a fresh proof, never the bound token as
    /// Bearer. The configuration's `nil` transport, clock and observer are the source's client's.
    /// - Throws: ``/OIDCCore/OIDCError`` `insecure_url` for an origin that is neither `https` nor loopback `http`, before any
    ///   token is requested; the first token request's error; the store's.
    public static func clientCredentials(
        _ source: ClientCredentialsTokenSource,
        configuration: Configuration
    ) async throws -> AuthenticatedSession {
        _ = try Origin.checked(configuration.allowedOrigins)  // before a token is requested
        var tokens = try await source.token()
        tokens.refreshToken = nil  // the grant issues none (RFC 6749 §4.4.3); one sent anyway is not kept
        let client = source.client
        try await configuration.store?.save(tokens)
        return try AuthenticatedSession(
            tokens: tokens, renewal: .clientCredentials(source),
            configuration: configuration.filled(
                transport: client.transport, clock: client.clock,
                observer: client.observer,
                refreshedIDTokens: .refuseIDTokens))
    }
}
