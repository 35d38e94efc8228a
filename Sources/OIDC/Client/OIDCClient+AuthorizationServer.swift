#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension OIDCClient {
    /// What kind of server an ``OIDCClient`` talks to.
    public enum ProviderKind: String, Sendable, Hashable {
        /// An OpenID provider: logins return ID Tokens, checked in full.
        case openIDProvider
        /// An OAuth 2.0 authorization server that is not an OpenID provider (RFC 8414 metadata without the
        /// fields OpenID Connect Discovery requires): client credentials, token exchange, JWT bearer, refresh,
        /// introspection and revocation work; a login (``startLogin(_:)``) is refused
        /// with `.notAnOpenIDProvider`, since no ID Token could authenticate the user.
        case oauthAuthorizationServer
    }

    /// A client for an OAuth 2.0 authorization server found through its RFC 8414 metadata
    /// (`/.well-known/oauth-authorization-server` with the path insertion rule), with the same exact-issuer and
    /// https checks as ``discover(issuer:authentication:transport:configuration:)``.
    ///
    /// The kind is decided by the document: when it carries every field OpenID Connect Discovery §3 requires
    /// (`authorization_endpoint`, `jwks_uri`, `response_types_supported`, `subject_types_supported`,
    /// `id_token_signing_alg_values_supported`), the server is an OpenID provider publishing at the RFC 8414
    /// location, and logins work with every ID Token check; otherwise ``ProviderKind/oauthAuthorizationServer``.
    /// - Parameters:
    ///   - issuer: the issuer identifier, exactly as the server states it.
    ///   - authentication: how the client authenticates at the token endpoint.
    ///   - transport: the HTTP transport; `nil`, the default, is a `LibSSLTransport` trusting the system's CAs.
    ///   - configuration: clock, leeway, accepted token types, DPoP, observer.
    /// - Throws: ``/OIDCCore/OIDCError``: the errors of `Discovery.fetchAuthorizationServer(issuer:transport:observer:)`,
    ///   and those of ``init(authorizationServerMetadata:authentication:transport:configuration:)``.
    public static func authorizationServer(
        issuer: String, authentication: ClientAuthentication, transport: (any HTTPTransport)? = nil,
        configuration: Configuration = Configuration()
    ) async throws -> OIDCClient {
        let transport = try transport ?? LibSSLTransport()
        let metadata = try await Discovery.fetchAuthorizationServer(issuer: issuer, transport: transport, observer: configuration.observer)
        return try OIDCClient(
            authorizationServerMetadata: metadata, authentication: authentication, transport: transport,
            configuration: configuration)
    }

    /// A client for an authorization server whose RFC 8414 metadata the caller already has. Only `token_endpoint`
    /// is required; the kind follows the rule of ``authorizationServer(issuer:authentication:transport:configuration:)``.
    /// - Parameters:
    ///   - metadata: the server's metadata.
    ///   - authentication: how the client authenticates at the token endpoint.
    ///   - transport: the HTTP transport; `nil`, the default, is a `LibSSLTransport` trusting the system's CAs.
    ///   - configuration: clock, leeway, accepted token types, DPoP, observer.
    /// - Throws: ``/OIDCCore/OIDCError`` `.discoveryMissingField` (no `token_endpoint`), `.insecureURL` / `.invalidIssuerURL`
    ///   for any endpoint (`ProviderMetadata.checkEndpointSecurity()`), a `fapi_*` code under the FAPI 2.0 profile.
    public init(
        authorizationServerMetadata metadata: ProviderMetadata, authentication: ClientAuthentication,
        transport: (any HTTPTransport)? = nil, configuration: Configuration = Configuration()
    ) throws {
        let kind: ProviderKind = metadata.missingRequiredOpenIDFields.isEmpty ? .openIDProvider : .oauthAuthorizationServer
        try self.init(
            checkedMetadata: metadata, kind: kind, authentication: authentication,
            transport: try transport ?? LibSSLTransport(), configuration: configuration)
    }
}
