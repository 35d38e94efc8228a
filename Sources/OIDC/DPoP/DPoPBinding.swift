import JOSE

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Binds a client's requests to a ``DPoPKey``: a fresh proof on every request and every retry.
///
/// The servers' nonces are remembered per origin and role, and a nonce challenge (RFC 9449 §8.2, §9.1)
/// is answered by exactly one retry. Give it to ``OIDCClient/Configuration`` or ``TokenClient`` for
/// authorization-server requests (token, PAR, CIBA, device); a DPoP session uses the same binding for
/// resource requests (`Authorization: DPoP <token>` with `ath`). Share one per client.
public struct DPoPBinding: Sendable, CustomStringConvertible, CustomReflectable {
    /// The key proofs are signed with.
    public let key: DPoPKey
    /// The nonces servers gave.
    package let nonces: DPoPNonceStore
    /// The clock proofs are dated by (`iat` is its whole second minus one).
    package let clock: @Sendable () -> Date

    /// Binds requests to `key`; proofs are dated by `clock`.
    public init(key: DPoPKey, clock: @escaping @Sendable () -> Date = { Date() }) {
        self.init(key: key, nonces: DPoPNonceStore(), clock: clock)
    }

    /// Binds requests to `key`, with the nonces of `nonces`.
    package init(key: DPoPKey, nonces: DPoPNonceStore, clock: @escaping @Sendable () -> Date = { Date() }) {
        self.key = key
        self.nonces = nonces
        self.clock = clock
    }

    /// e.g. `DPoPBinding(ES256, jkt: ...)`.
    public var description: String { "DPoPBinding(\(key.algorithm.rawValue), jkt: \(key.thumbprint))" }
    /// The algorithm and thumbprint only: `dump` shows no key material and no nonce.
    public var customMirror: Mirror { Mirror(self, children: ["algorithm": key.algorithm.rawValue, "jkt": key.thumbprint]) }

    /// Sends `request` to a resource server with `accessToken` DPoP-bound (RFC 9449 §7): `Authorization: DPoP <token>`
    /// and a fresh proof naming the request's method and URL, the token (`ath`) and the server's last nonce; a
    /// `use_dpop_nonce` challenge (401 with a `DPoP` challenge and a new `DPoP-Nonce`) gets exactly one retry with a new
    /// proof, and the last answer is returned as it came. Redirects are not followed. For a token this binding's key
    /// obtained, e.g. through ``ProtectedResourceAccess`` with this binding as the client configuration's `dpop`.
    /// - Parameters:
    ///   - request: the resource request (its own `Authorization` and `DPoP` headers are replaced).
    ///   - accessToken: the DPoP-bound access token.
    ///   - transport: the HTTP transport.
    ///   - observer: receives a ``/OIDCCore/OIDCEvent/Kind/dpopNonceRetry`` event when the retry is made; `nil`: none.
    /// - Throws: ``/OIDCCore/OIDCError`` `.transport` when no response came, `.dpopProofFailed` or `.dpopInvalidTarget`
    ///   when no proof could be made.
    public func send(
        _ request: TransportRequest, accessToken: String, transport: any HTTPTransport, observer: (any OIDCObserver)? = nil
    ) async throws -> TransportResponse {
        try await send(role: .resourceServer, accessToken: accessToken, observer: observer, transport: transport) { request }
    }

    /// Adds the `DPoP` header (and, with `accessToken`, `Authorization: DPoP <token>`)
    /// for the nonce remembered for the request's origin in `role`; returns the nonce used.
    package func sign(_ request: inout TransportRequest, role: DPoPNonceStore.Role, accessToken: String? = nil) throws -> String? {
        let nonce = nonces.nonce(for: request.url, role: role)
        request.headers["DPoP"] = try key.proof(
            method: request.method.rawValue, url: request.url, accessToken: accessToken, nonce: nonce,
            now: clock())
        if let accessToken { request.headers["Authorization"] = "DPoP " + accessToken }
        return nonce
    }

    /// Sends the request `makeRequest` builds with a DPoP proof, remembers any
    /// `DPoP-Nonce` the server returns, and when the answer is a nonce challenge
    /// (`use_dpop_nonce` in a 400 JSON error or a 401 `DPoP` challenge) with a
    /// new nonce, builds the request again (so a client assertion is fresh too),
    /// signs a new proof with that nonce and sends it once more. Never more than
    /// one retry; the last response is returned as it came. `observer` (default `nil`) receives a
    /// ``OIDCEvent/Kind/dpopNonceRetry`` event when the retry is made.
    /// - Throws: ``OIDCError`` `.transport` when no response came, `.dpopProofFailed`
    ///   or `.dpopInvalidTarget` when no proof could be made, or what `makeRequest` throws.
    package func send(
        role: DPoPNonceStore.Role, accessToken: String? = nil, observer: (any OIDCObserver)? = nil, transport: any HTTPTransport,
        request makeRequest: @Sendable () throws -> TransportRequest
    ) async throws -> TransportResponse {
        var request = try makeRequest()
        let sentNonce = try sign(&request, role: role, accessToken: accessToken)
        let response = try await DPoPBinding.transmit(request, transport: transport)
        let fresh = remember(response, for: request.url, role: role)
        guard DPoPBinding.isNonceChallenge(response), let fresh, fresh != sentNonce else { return response }
        var retry = try makeRequest()
        _ = try sign(&retry, role: role, accessToken: accessToken)
        let second = try await observer.observe(.dpopNonceRetry, origin: OIDCEvent.origin(of: retry.url)) {
            try await DPoPBinding.transmit(retry, transport: transport)
        }
        _ = remember(second, for: retry.url, role: role)
        return second
    }

    /// Records the response's `DPoP-Nonce`, returning it when it was kept.
    private func remember(_ response: TransportResponse, for url: URL, role: DPoPNonceStore.Role) -> String? {
        guard let header = response.headers["DPoP-Nonce"] else { return nil }
        let nonce = String(header.drop(while: { $0 == " " || $0 == "\t" }).reversed().drop(while: { $0 == " " || $0 == "\t" }).reversed())
        guard nonces.record(nonce, for: url, role: role) else { return nil }
        return nonce
    }

    /// Whether the response asks for a (new) nonce: HTTP 400 with the JSON
    /// error `use_dpop_nonce` (authorization server) or HTTP 401 with a `DPoP`
    /// challenge whose error is `use_dpop_nonce` (resource server).
    package static func isNonceChallenge(_ response: TransportResponse) -> Bool {
        if response.status == 401 {
            return response.headers.values(for: "WWW-Authenticate").contains { challenge in
                let lower = challenge.lowercased()
                return lower.hasPrefix("dpop") && lower.contains("use_dpop_nonce")
            }
        }
        guard response.status == 400, let object = try? JSONParser.parseObject(response.body, what: "error") else { return false }
        return object["error"]?.stringValue == "use_dpop_nonce"
    }

    /// Sends without following redirects; a transport failure becomes ``OIDCError`` `.transport`.
    static func transmit(_ request: TransportRequest, transport: any HTTPTransport) async throws -> TransportResponse {
        var request = request
        request.followsRedirects = false
        do {
            return try await transport.send(request)
        } catch let error as TransportError {
            throw OIDCError(.transport, "\(request.method) \(request.url.host ?? "?") failed: \(error)", transportError: error)
        }
    }
}
