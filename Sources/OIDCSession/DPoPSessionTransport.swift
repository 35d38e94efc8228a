import OIDC

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A refresher whose client may hold the DPoP key of the tokens it obtains: a session over it
/// sends them DPoP-bound (``DPoPSessionTransport/forSession(transport:dpop:renewal:origins:observer:)``).
protocol SessionDPoPKeyHolder {
    /// The client's DPoP binding, if it has one.
    var sessionDPoPBinding: DPoPBinding? { get }
}

/// The transport that makes an ``AuthenticatedSession`` use DPoP-bound tokens (RFC 9449 §7).
///
/// On requests to the given origins that carry the session's `Authorization: Bearer <token>`, it sends
/// `Authorization: DPoP <token>` with a fresh proof (`ath` of that token, the resource server's nonce),
/// answers a resource server's `use_dpop_nonce` challenge with one retry, and leaves every other request
/// untouched. A retry after the session's refresh goes through it again, so it gets a new proof for the new token.
package struct DPoPSessionTransport: HTTPTransport {
    /// The key and nonces.
    package let binding: DPoPBinding
    /// The transport underneath.
    let transport: any HTTPTransport
    /// Where the Bearer header is turned into DPoP.
    let origins: Set<Origin>
    /// Receives a ``OIDC/OIDCEvent/Kind/dpopNonceRetry`` event per nonce retry; `nil`: none.
    package let observer: (any OIDCObserver)?

    /// What a session sends through, the one rule for every construction path of ``AuthenticatedSession``:
    /// `transport` itself when it is already a `DPoPSessionTransport` covering every origin of the session (one
    /// that misses some is widened to them, so no allowed origin gets a DPoP token as Bearer); this transport around
    /// it when the configuration names a DPoP key (`dpop`) or the renewing client holds a DPoP binding (its tokens are
    /// then DPoP-bound and must never go out as Bearer); `transport` itself otherwise (the session then refuses to
    /// send a `DPoP` token: `dpop_key_missing`). `observer` is given to a transport made here, or to one that has none.
    static func forSession(
        transport: any HTTPTransport, dpop: DPoPBinding?, renewal: SessionRenewal, origins: [URL],
        observer: (any OIDCObserver)? = nil
    ) -> any HTTPTransport {
        if let existing = transport as? DPoPSessionTransport {
            let wanted = Set(origins.compactMap(Origin.init))
            return DPoPSessionTransport(
                binding: existing.binding, transport: existing.transport,
                origins: existing.origins.union(wanted), observer: existing.observer ?? observer)
        }
        guard let binding = dpop ?? renewal.dpopBinding else { return transport }
        return DPoPSessionTransport(
            binding: binding, transport: transport, origins: Set(origins.compactMap(Origin.init)),
            observer: observer)
    }

    /// Wraps `transport` for requests to `origins` (scheme, host and port).
    package init(binding: DPoPBinding, transport: any HTTPTransport, origins: [URL], observer: (any OIDCObserver)? = nil) {
        self.init(binding: binding, transport: transport, origins: Set(origins.compactMap(Origin.init)), observer: observer)
    }

    init(binding: DPoPBinding, transport: any HTTPTransport, origins: Set<Origin>, observer: (any OIDCObserver)?) {
        self.binding = binding
        self.transport = transport
        self.origins = origins
        self.observer = observer
    }

    /// Sends `request`, DPoP-bound when it carries a Bearer token for one of the origins.
    package func send(_ request: TransportRequest) async throws -> TransportResponse {
        guard let origin = Origin(request.url), origins.contains(origin), let authorization = request.headers["Authorization"],
            authorization.count > 7, authorization.prefix(7).lowercased() == "bearer "
        else {
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

extension TokenClient: SessionDPoPKeyHolder {
    var sessionDPoPBinding: DPoPBinding? { dpop }
}

extension OIDCClient: SessionDPoPKeyHolder {
    var sessionDPoPBinding: DPoPBinding? { configuration.dpop }
}
