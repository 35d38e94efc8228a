import JOSE

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Fetches and caches OpenID Provider metadata (OpenID Connect Discovery 1.0 §4)
/// from `ISSUER/.well-known/openid-configuration`, through an ``HTTPTransport``.
///
/// The document's `issuer` must equal the requested issuer exactly (§4.3), the
/// issuer must be `https` (or `http` on a loopback host), the fields
/// OpenID Connect requires must be present, and every endpoint it publishes must pass
/// `ProviderMetadata.checkEndpointSecurity()` (no `http` endpoint from an `https` issuer). Documents are cached per issuer
/// for ``timeToLive`` seconds; concurrent first requests share one fetch.
public actor Discovery {
    /// The transport requests go through.
    public nonisolated let transport: any HTTPTransport
    /// How long a document is kept, in seconds.
    public nonisolated let timeToLive: TimeInterval
    /// The current time (inject a fixed clock in tests).
    public nonisolated let clock: @Sendable () -> Date
    /// Receives a ``OIDCEvent/Kind/discovery`` event per document fetched (not per cache hit); `nil`: none.
    public nonisolated let observer: (any OIDCObserver)?

    private var entries: [String: (metadata: ProviderMetadata, expires: Date)] = [:]
    private var inFlight: [String: Task<ProviderMetadata, any Error>] = [:]

    /// Creates a discovery client.
    /// - Parameters:
    ///   - transport: how the documents are fetched (https, or http for a loopback issuer).
    ///   - timeToLive: seconds a fetched document is reused (default one hour).
    ///   - clock: the current time.
    ///   - observer: receives an event per document fetched; `nil` (default): none.
    public init(
        transport: any HTTPTransport, timeToLive: TimeInterval = 3600, clock: @escaping @Sendable () -> Date = { Date() },
        observer: (any OIDCObserver)? = nil
    ) {
        self.observer = observer
        self.transport = transport
        self.timeToLive = timeToLive
        self.clock = clock
    }

    /// The metadata of `issuer`, from the cache or fetched.
    /// - Throws: ``OIDCError`` `.invalidIssuerURL`, `.insecureURL`, `.discoveryTransportFailed`,
    ///   `.discoveryHTTPStatus`, `.discoveryInvalidDocument`, `.discoveryMissingField`,
    ///   `.discoveryIssuerMismatch`; `.insecureURL` / `.invalidIssuerURL` naming the endpoint
    ///   (``OIDCError/endpoint``) when the document publishes an endpoint that
    ///   `ProviderMetadata.checkEndpointSecurity()` refuses (e.g. an `http` token endpoint, or an
    ///   `http://127.0.0.1` `jwks_uri`, from an `https` issuer).
    public func metadata(for issuer: String) async throws -> ProviderMetadata {
        try await cached(key: issuer) { [transport, observer] in
            try await Self.fetch(issuer: issuer, transport: transport, observer: observer)
        }
    }

    /// The cached document under `key`, or the one `fetch` gives (concurrent first requests share one fetch).
    package func cached(key: String, _ fetch: @escaping @Sendable () async throws -> ProviderMetadata) async throws -> ProviderMetadata {
        if let entry = entries[key], entry.expires > clock() { return entry.metadata }
        if let task = inFlight[key] { return try await task.value }
        let task = Task { try await fetch() }
        inFlight[key] = task
        defer { inFlight[key] = nil }
        let metadata = try await task.value
        entries[key] = (metadata, clock().addingTimeInterval(timeToLive))
        return metadata
    }

    /// Drops the cached document of `issuer` (or of every issuer).
    public func invalidate(issuer: String? = nil) {
        if let issuer {
            entries[issuer] = nil
            entries["oauth-authorization-server " + issuer] = nil
        } else {
            entries.removeAll()
        }
    }

    /// `issuer` + `/.well-known/openid-configuration` (a trailing `/` of the issuer is not doubled).
    package nonisolated static func configurationURL(for issuer: String) throws -> URL {
        _ = try SecureURLPolicy.check(issuer, what: "the issuer")
        var base = issuer
        if base.hasSuffix("/") { base.removeLast() }
        guard let url = URL(string: base + "/.well-known/openid-configuration") else {
            throw OIDCError(.invalidIssuerURL, "the issuer does not form a discovery URL")
        }
        return url
    }

    /// Fetches and checks a document without caching it.
    /// - Parameters:
    ///   - issuer: the issuer identifier, exactly as the provider states it.
    ///   - transport: how the document is fetched.
    ///   - observer: receives one ``OIDCEvent/Kind/discovery`` event (the issuer's origin, duration, outcome); `nil`: none.
    ///   - profile: the provider profile whose documented discovery `issuer` is accepted besides the exact one
    ///     (Entra ID multi-tenant: the template `…/{tenantid}/v2.0`; the returned metadata's `issuer` is then
    ///     the requested one, and each ID Token's `iss` is checked against its own tenant); `nil` (default): exact only.
    package nonisolated static func fetch(
        issuer: String, transport: any HTTPTransport,
        observer: (any OIDCObserver)? = nil, profile: ProviderProfile? = nil
    ) async throws -> ProviderMetadata {
        try await observer.observe(.discovery, origin: Observation.origin(of: issuer)) {
            try await fetchDocument(issuer: issuer, transport: transport, profile: profile)
        }
    }

    /// The path a full discovery URL ends with (OpenID Connect Discovery §4).
    package nonisolated static let configurationPath = "/.well-known/openid-configuration"

    /// ``fetch(issuer:transport:observer:profile:)`` without the event. `issuer` may also be the full discovery URL
    /// (`issuer + /.well-known/openid-configuration`, as consoles such as Entra ID's show it): the issuer is then that
    /// URL without the suffix, and every rule (the document's `issuer`, the profile's template) applies to it.
    package nonisolated static func fetchDocument(
        issuer: String, transport: any HTTPTransport,
        profile: ProviderProfile? = nil
    ) async throws -> ProviderMetadata {
        let issuer = issuer.hasSuffix(configurationPath) ? String(issuer.dropLast(configurationPath.count)) : issuer
        return try await fetchDocument(
            issuer: issuer, url: try configurationURL(for: issuer), endpoint: .discoveryDocument,
            requireOpenIDFields: true, transport: transport, profile: profile)
    }

    /// The one implementation of the discovery rules, for OpenID (`requireOpenIDFields`) and RFC 8414 documents:
    /// no query or fragment in the issuer, the document's `issuer` exactly the requested one (or the one `profile`
    /// documents for it), the required fields, every endpoint through ``ProviderMetadata/checkEndpointSecurity()``.
    package nonisolated static func fetchDocument(
        issuer: String, url: URL, endpoint: ProviderEndpoint, requireOpenIDFields: Bool,
        transport: any HTTPTransport, profile: ProviderProfile? = nil
    ) async throws -> ProviderMetadata {
        if issuer.contains("?") || issuer.contains("#") {
            throw OIDCError(.invalidIssuerURL, "an issuer has no query or fragment (OpenID Connect Core §2, RFC 8414 §2)")
        }
        let fetch = EndpointFetch(
            endpoint: endpoint, issuer: issuer, transportFailure: .discoveryTransportFailed,
            invalidBody: .discoveryInvalidDocument, statusCode: .discoveryHTTPStatus)
        var metadata = try await fetch.fetch(TransportRequest(url: url, headers: ["Accept": "application/json"]), via: transport) {
            try ProviderMetadata(jsonBytes: $0.body)
        }
        if metadata.issuer != issuer, profile?.acceptsDiscoveredIssuer(metadata.issuer, requested: issuer) == true {
            metadata.issuer = issuer  // the template stood for this alias; tokens are checked per tenant
        }
        guard metadata.issuer == issuer else {
            throw OIDCError(.discoveryIssuerMismatch, "the discovery document's issuer is not exactly the requested issuer")
        }
        if requireOpenIDFields {
            let missing = metadata.missingRequiredOpenIDFields
            guard missing.isEmpty else {
                throw OIDCError(.discoveryMissingField, "the discovery document lacks \(missing.joined(separator: ", "))")
            }
        }
        try metadata.checkEndpointSecurity()
        return metadata
    }
}
