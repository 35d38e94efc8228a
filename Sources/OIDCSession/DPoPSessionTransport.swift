#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import OIDC

/// A refresher whose client may hold the DPoP key of the tokens it obtains: a session over it
/// sends them DPoP-bound (``DPoPSessionTransport/forSession(transport:refresher:origins:observer:)``).
protocol SessionDPoPKeyHolder {
    /// The client's DPoP binding, if it has one.
    var sessionDPoPBinding: DPoPBinding? { get }
}

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
    /// The transport underneath.
    let transport: any HTTPTransport
    /// Where the Bearer header is turned into DPoP.
    let origins: Set<Origin>
    /// Receives a ``OIDC/OIDCEvent/Kind/dpopNonceRetry`` event per nonce retry; `nil` (default): none.
    public var observer: (any OIDCObserver)? = nil

    /// What a session sends through, the one rule for every construction path of ``AuthenticatedSession``:
    /// `transport` itself when it is already a `DPoPSessionTransport` covering every origin of the session (one
    /// that misses some is widened to them, so no allowed origin gets a DPoP token as Bearer); this transport around it when
    /// `refresher` holds a DPoP binding (its tokens are then DPoP-bound and must never go out as Bearer);
    /// `transport` itself otherwise (the session then refuses to send a `DPoP` token: `dpop_key_missing`).
    /// `observer` is given to a transport made here, or to one that has none.
    static func forSession(transport: any HTTPTransport, refresher: any TokenRefresher, origins: [URL],
                           observer: (any OIDCObserver)? = nil) -> any HTTPTransport {
        if var existing = transport as? DPoPSessionTransport {
            if existing.observer == nil { existing.observer = observer }
            let wanted = Set(origins.compactMap(Origin.init))
            if wanted.isSubset(of: existing.origins) { return existing }
            var widened = DPoPSessionTransport(binding: existing.binding, transport: existing.transport, origins: existing.origins.union(wanted))
            widened.observer = existing.observer
            return widened
        }
        guard let binding = (refresher as? any SessionDPoPKeyHolder)?.sessionDPoPBinding else { return transport }
        var sender = DPoPSessionTransport(binding: binding, transport: transport, origins: origins)
        sender.observer = observer
        return sender
    }

    /// Wraps `transport` for requests to `origins` (scheme, host and port).
    public init(binding: DPoPBinding, transport: any HTTPTransport, origins: [URL]) {
        self.init(binding: binding, transport: transport, origins: Set(origins.compactMap(Origin.init)))
    }

    init(binding: DPoPBinding, transport: any HTTPTransport, origins: Set<Origin>) {
        self.binding = binding
        self.transport = transport
        self.origins = origins
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

/// Refreshes DPoP-bound tokens through a ``OIDC/TokenClient``: its DPoP binding signs the refresh,
/// and a `token_type` other than `DPoP` is refused.
public struct DPoPTokenRefresher: TokenRefresher {
    /// The client, with its DPoP binding.
    public let client: TokenClient

    /// Refreshes with `client` at its token endpoint.
    public init(client: TokenClient) {
        self.client = client
    }

    /// The `refresh_token` grant, with a DPoP proof.
    public func refreshTokens(using refreshToken: String) async throws -> TokenResponse {
        try await client.requestTokens([("grant_type", "refresh_token"), ("refresh_token", refreshToken)], rule: .strict)
    }
}

extension AuthenticatedSession {
    /// A session whose requests to `allowedOrigins` carry `Authorization: DPoP` with a
    /// fresh proof from `client`'s DPoP binding, and whose refreshes go through `client`.
    /// The other parameters are those of ``init(tokens:refresher:transport:allowedOrigins:store:refreshedIDTokens:proactiveRefreshMargin:refreshBackoff:clock:observer:)``.
    /// - Throws: ``OIDC/OIDCError`` `.dpopProofFailed` when `client` has no DPoP binding; the initializer's
    ///   errors (an origin that is not https or loopback http).
    public static func dpop(tokens: TokenResponse?, client: TokenClient, transport: any HTTPTransport,
                            allowedOrigins: [URL], store: (any TokenStore)? = nil, refreshedIDTokens: RefreshedIDTokenPolicy = .refuseIDTokens,
                            proactiveRefreshMargin: TimeInterval? = nil, refreshBackoff: TimeInterval = 10,
                            clock: @escaping @Sendable () -> Date = { Date() }) throws -> AuthenticatedSession {
        guard client.dpop != nil else { throw OIDCError(.dpopProofFailed, "a DPoP session needs a client with a DPoP binding") }
        // The refresher holds the binding: the initializer's one rule wraps `transport` in a DPoPSessionTransport.
        return try AuthenticatedSession(tokens: tokens, refresher: DPoPTokenRefresher(client: client),
                                    transport: transport,
                                    allowedOrigins: allowedOrigins, store: store, refreshedIDTokens: refreshedIDTokens,
                                    proactiveRefreshMargin: proactiveRefreshMargin, refreshBackoff: refreshBackoff, clock: clock)
    }
}

extension DPoPTokenRefresher: SessionDPoPKeyHolder {
    var sessionDPoPBinding: DPoPBinding? { client.dpop }
}

extension TokenClient: SessionDPoPKeyHolder {
    var sessionDPoPBinding: DPoPBinding? { dpop }
}

extension OIDCClient: SessionDPoPKeyHolder {
    var sessionDPoPBinding: DPoPBinding? { configuration.dpop }
}

extension ClientCredentialsRenewal: SessionDPoPKeyHolder {
    var sessionDPoPBinding: DPoPBinding? { source.client.dpop }
}
