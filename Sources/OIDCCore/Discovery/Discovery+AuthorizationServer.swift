#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// OAuth 2.0 Authorization Server Metadata (RFC 8414), for servers that are not OpenID providers.
///
/// The same rules as OpenID discovery (one implementation, shared with ``Discovery/fetch(issuer:transport:observer:)``):
/// https (or http on loopback), no query or fragment in the issuer, the document's `issuer` equal to the
/// requested issuer exactly (RFC 8414 §3.3), every published endpoint checked by
/// ``ProviderMetadata/checkEndpointSecurity()``. What differs is the URL (the path insertion rule of §3.1) and the
/// required fields: none beyond `issuer`, since an OAuth server need not publish an authorization endpoint (a
/// client-credentials-only server) nor a JWK Set.
extension Discovery {
    /// The RFC 8414 §3.1 metadata URL of `issuer`: `/.well-known/oauth-authorization-server` inserted between the host
    /// and the issuer's path (`https://as.example/tenant` → `https://as.example/.well-known/oauth-authorization-server/tenant`).
    /// - Throws: ``OIDCError`` `.invalidIssuerURL`, `.insecureURL`.
    package nonisolated static func authorizationServerMetadataURL(for issuer: String) throws -> URL {
        try WellKnownURL.url(for: issuer, suffix: "oauth-authorization-server", what: "the issuer")
    }

    /// Fetches and checks an RFC 8414 document without caching it.
    /// - Parameters:
    ///   - issuer: the issuer identifier, exactly as the server states it.
    ///   - transport: how the document is fetched.
    ///   - observer: receives one ``OIDCEvent/Kind/discovery`` event; `nil`: none.
    /// - Throws: ``OIDCError`` `.invalidIssuerURL`, `.insecureURL`, `.discoveryTransportFailed`, `.discoveryHTTPStatus`,
    ///   `.discoveryInvalidDocument`, `.discoveryMissingField` (no `issuer`), `.discoveryIssuerMismatch`; an endpoint's
    ///   `.insecureURL` / `.invalidIssuerURL`.
    package nonisolated static func fetchAuthorizationServer(
        issuer: String, transport: any HTTPTransport,
        observer: (any OIDCObserver)? = nil
    ) async throws -> ProviderMetadata {
        try await observer.observe(.discovery, origin: Observation.origin(of: issuer)) {
            try await fetchDocument(
                issuer: issuer, url: try authorizationServerMetadataURL(for: issuer),
                endpoint: .authorizationServerMetadata, requireOpenIDFields: false, transport: transport)
        }
    }

    /// The RFC 8414 metadata of `issuer`, from the cache or fetched (cached apart from OpenID documents).
    /// - Throws: as `fetchAuthorizationServer(issuer:transport:observer:)`.
    public func authorizationServerMetadata(for issuer: String) async throws -> ProviderMetadata {
        try await cached(key: "oauth-authorization-server " + issuer) { [transport, observer] in
            try await Self.fetchAuthorizationServer(issuer: issuer, transport: transport, observer: observer)
        }
    }
}

extension ProviderEndpoint {
    /// The RFC 8414 metadata document (`/.well-known/oauth-authorization-server`, path inserted).
    public static let authorizationServerMetadata = ProviderEndpoint(rawValue: "oauth-authorization-server")
}
