#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import OIDC

/// The transport that makes an ``AuthenticatedSession`` use DPoP-bound tokens
/// (RFC 9449 §7): on requests to the given origins that carry the session's
/// `Authorization: Bearer <token>`, it sends `Authorization: DPoP <token>` with a
/// fresh proof (`ath` of that token, the resource server's nonce), answers a
/// resource server's `use_dpop_nonce` challenge with one retry, and leaves every
/// other request untouched. A retry after the session's refresh goes through it
/// again, so it gets a new proof for the new token.
public struct DPoPSessionTransport: HTTPTransport {
    /// The key and nonces.
    public let binding: DPoPBinding
    private let transport: any HTTPTransport
    private let origins: Set<Origin>
    /// Receives a ``OIDC/OIDCEvent/Kind/dpopNonceRetry`` event per nonce retry; `nil` (default): none.
    public var observer: (any OIDCObserver)? = nil

    /// What a session on a client with `binding` sends through: this transport when the client has a DPoP
    /// binding (its tokens are then DPoP-bound and must never go out as Bearer), `transport` itself otherwise.
    /// The one rule for ``OIDC/OIDCClient``'s session and the client-credentials session.
    static func forSession(binding: DPoPBinding?, transport: any HTTPTransport, origins: [URL],
                           observer: (any OIDCObserver)? = nil) -> any HTTPTransport {
        guard let binding else { return transport }
        var sender = DPoPSessionTransport(binding: binding, transport: transport, origins: origins)
        sender.observer = observer
        return sender
    }

    /// Wraps `transport` for requests to `origins` (scheme, host and port).
    public init(binding: DPoPBinding, transport: any HTTPTransport, origins: [URL]) {
        self.binding = binding
        self.transport = transport
        self.origins = Set(origins.compactMap(Origin.init))
    }

    /// Sends `request`, DPoP-bound when it carries a Bearer token for one of the origins.
    public func send(_ request: TransportRequest) async throws -> TransportResponse {
        guard let origin = Origin(request.url), origins.contains(origin), let authorization = request.headers["Authorization"],
              authorization.count > 7, authorization.prefix(7).lowercased() == "bearer " else {
            return try await transport.send(request)
        }
        let token = String(authorization.dropFirst(7))
        return try await binding.send(role: .resourceServer, accessToken: token, observer: observer, transport: transport) {
            var unbound = request
            unbound.headers["Authorization"] = nil
            return unbound
        }
    }
}

/// Refreshes DPoP-bound tokens at the token endpoint through a ``OIDC/BackChannelClient``
/// (its DPoP binding signs the refresh; a `token_type` other than `DPoP` is refused).
public struct DPoPTokenRefresher: TokenRefresher {
    /// The client (with its DPoP binding).
    public let client: BackChannelClient
    /// The token endpoint.
    public let tokenEndpoint: URL

    /// Refreshes with `client` at `tokenEndpoint`.
    public init(client: BackChannelClient, tokenEndpoint: URL) {
        self.client = client
        self.tokenEndpoint = tokenEndpoint
    }

    /// The `refresh_token` grant, with a DPoP proof.
    public func refreshTokens(using refreshToken: String) async throws -> TokenResponse {
        try await client.requestTokens([("grant_type", "refresh_token"), ("refresh_token", refreshToken)], at: tokenEndpoint)
    }
}

extension AuthenticatedSession {
    /// A session whose requests to `allowedOrigins` carry `Authorization: DPoP` with a
    /// fresh proof from `client`'s DPoP binding, and whose refreshes go through `client`.
    /// The other parameters are those of ``init(tokens:refresher:transport:allowedOrigins:store:refreshedIDTokens:proactiveRefreshMargin:refreshBackoff:clock:observer:)``.
    /// - Throws: ``OIDC/OIDCError`` `.dpopProofFailed` when `client` has no DPoP binding.
    public static func dpop(tokens: TokenResponse?, client: BackChannelClient, tokenEndpoint: URL, transport: any HTTPTransport,
                            allowedOrigins: [URL], store: (any TokenStore)? = nil, refreshedIDTokens: RefreshedIDTokenPolicy = .refuseIDTokens,
                            proactiveRefreshMargin: TimeInterval? = nil, refreshBackoff: TimeInterval = 10,
                            clock: @escaping @Sendable () -> Date = { Date() }) throws -> AuthenticatedSession {
        guard let binding = client.dpop else { throw OIDCError(.dpopProofFailed, "a DPoP session needs a client with a DPoP binding") }
        return AuthenticatedSession(tokens: tokens, refresher: DPoPTokenRefresher(client: client, tokenEndpoint: tokenEndpoint),
                                    transport: DPoPSessionTransport(binding: binding, transport: transport, origins: allowedOrigins),
                                    allowedOrigins: allowedOrigins, store: store, refreshedIDTokens: refreshedIDTokens,
                                    proactiveRefreshMargin: proactiveRefreshMargin, refreshBackoff: refreshBackoff, clock: clock)
    }
}
