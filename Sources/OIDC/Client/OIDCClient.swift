import JOSE

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// One OpenID provider and one registered client, bound once and shared by every request
/// of a back end (openid-client's `Configuration`).
///
/// Holds the provider's metadata (from discovery or given), the client authentication,
/// the transport, and the provider's JWK Set cache; cheap to copy and `Sendable`.
///
/// ```swift
/// let client = try await OIDCClient.discover(issuer: "https://idp.example.com",
///                                            authentication: .clientSecretBasic(clientID: "app", secret: secret))
/// let pending = try await client.startLogin(LoginRequest(redirectURI: callback, scopes: ["openid", "email"]))
/// // send the browser to pending.url; store `pending` (Codable, holds secrets: keep it server-side)
/// let login = try await client.finishLogin(pending, callback: .url(redirectURL))
/// ```
///
/// Every check is on by default: the redirect (state, RFC 9207 `iss` when the provider
/// advertises it), the token type, and the ID Token with everything the pending login implies.
public struct OIDCClient: Sendable, CustomStringConvertible, CustomReflectable {
    /// The provider's metadata; for a client using mutual TLS, with its `mtls_endpoint_aliases` in place of
    /// the endpoints they alias (`ProviderMetadata.withMutualTLSEndpointAliases()`).
    public let metadata: ProviderMetadata
    /// How the client authenticates at the token, revocation and introspection endpoints.
    public let authentication: ClientAuthentication
    /// The HTTP transport.
    public let transport: any HTTPTransport
    /// The settings.
    public let configuration: Configuration
    /// The client's one caller of the provider's token endpoint and back-channel endpoints, with its authentication,
    /// DPoP binding and observer: for the grants this client has no method of its own for (client credentials,
    /// token exchange, JWT bearer).
    public let tokenClient: TokenClient
    /// The ID Token validator for this provider and client, with the provider's JWK Set cache.
    public let validator: IDTokenValidator
    /// The provider's keys, from the JWK Set cache for its `jwks_uri` this client keeps.
    ///
    /// Every check of this client uses it, and the application's other checks can share it, such as
    /// an access-token validator for the same issuer. An OAuth-only server without a `jwks_uri` has an empty set.
    public let providerKeys: IssuerKeys
    /// Whether the server is an OpenID provider (logins with ID Tokens) or an OAuth-only authorization server
    /// (``authorizationServer(issuer:authentication:transport:configuration:)``: no login; tokens only).
    public let providerKind: ProviderKind

    /// The client id.
    public var clientID: String { authentication.clientID }
    /// The issuer identifier.
    public var issuer: String { metadata.issuer }

    /// A client for the provider at `issuer`, found through its discovery document
    /// (`issuer` checked exactly, https unless loopback).
    /// - Parameters:
    ///   - issuer: the issuer identifier, exactly as the provider states it, or its full discovery URL
    ///     (`…/.well-known/openid-configuration`): the issuer is then that URL without the suffix, checked the same
    ///     way (an Entra ID multi-tenant `…/common/v2.0/.well-known/openid-configuration` keeps the `{tenantid}` rule).
    ///   - authentication: how the client authenticates at the token endpoint.
    ///   - transport: the HTTP transport; `nil`, the default, is a `LibSSLTransport` trusting the system's CAs.
    ///   - configuration: clock, leeway, accepted token types, algorithms, key cache.
    /// - Throws: ``/OIDCCore/OIDCError``: discovery errors, `.jwksURIMissing`, `.discoveryMissingField`, `.insecureURL`.
    public static func discover(
        issuer: String, authentication: ClientAuthentication, transport: (any HTTPTransport)? = nil,
        configuration: Configuration = Configuration()
    ) async throws -> OIDCClient {
        let transport = try transport ?? LibSSLTransport()
        let metadata = try await Discovery.fetch(
            issuer: issuer, transport: transport, observer: configuration.observer,
            profile: configuration.profile)
        return try OIDCClient(metadata: metadata, authentication: authentication, transport: transport, configuration: configuration)
    }

    /// A client for a provider whose metadata the caller already has (fetched earlier, or configured).
    /// - Parameters:
    ///   - metadata: the provider's metadata (its issuer, endpoints and `jwks_uri`); with `tls_client_auth`,
    ///     `self_signed_tls_client_auth` or ``Configuration/usesMutualTLSEndpoints``, its `mtls_endpoint_aliases` replace
    ///     the token, revocation, introspection, PAR, UserInfo, device and CIBA endpoints.
    ///   - authentication: how the client authenticates at the token endpoint.
    ///   - transport: the HTTP transport; `nil`, the default, is a `LibSSLTransport` trusting the system's CAs.
    ///   - configuration: clock, leeway, accepted token types, algorithms, key cache.
    /// - Throws: ``/OIDCCore/OIDCError`` `.discoveryMissingField` (no `authorization_endpoint` or `token_endpoint`),
    ///   `.jwksURIMissing`, `.insecureURL` / `.invalidIssuerURL` for any endpoint of the metadata
    ///   (`ProviderMetadata.checkEndpointSecurity()`).
    public init(
        metadata: ProviderMetadata, authentication: ClientAuthentication, transport: (any HTTPTransport)? = nil,
        configuration: Configuration = Configuration()
    ) throws {
        guard metadata.authorizationEndpoint != nil else {
            throw OIDCError(.discoveryMissingField, "the provider metadata has no authorization_endpoint")
        }
        guard metadata.jwksURI != nil else { throw OIDCError(.jwksURIMissing, "the provider publishes no jwks_uri") }
        try self.init(
            checkedMetadata: metadata, kind: .openIDProvider, authentication: authentication,
            transport: try transport ?? LibSSLTransport(), configuration: configuration)
    }

    /// The one initializer behind the OpenID and the OAuth-only ones: the token client (every endpoint checked
    /// against the issuer), the ID Token validator (keys from `jwks_uri` when published) and the FAPI 2.0 check.
    /// With mutual TLS (RFC 8705 §5) the provider's `mtls_endpoint_aliases` replace the endpoints they name.
    init(
        checkedMetadata metadata: ProviderMetadata, kind: ProviderKind, authentication: ClientAuthentication,
        transport: any HTTPTransport, configuration: Configuration
    ) throws {
        let metadata =
            authentication.usesMutualTLS || configuration.usesMutualTLSEndpoints
            ? try metadata.withMutualTLSEndpointAliases() : metadata
        self.providerKind = kind
        self.metadata = metadata
        self.authentication = authentication
        self.transport = transport
        self.configuration = configuration
        // Checks every endpoint of the metadata against the issuer (https; http only for a loopback issuer).
        var tokenClient = try TokenClient(
            metadata: metadata, authentication: authentication, transport: transport,
            assertionAudience: configuration.assertionAudience, dpop: configuration.dpop,
            observer: configuration.observer, clock: configuration.clock)
        tokenClient.explicitlyTypedAssertions = configuration.explicitlyTypedClientAssertions
        tokenClient.acceptedTokenTypes = configuration.acceptedTokenTypes
        self.tokenClient = tokenClient
        var config = IDTokenValidator.Configuration(
            metadata: metadata, clientID: authentication.clientID,
            clientSecret: authentication.sharedSecret, clock: configuration.clock,
            leeway: configuration.leeway)
        config.allowedAlgorithms = configuration.allowedAlgorithms
        config.profile = configuration.profile
        config.decryptionKeys = configuration.decryptionKeys.addingClientSecret(authentication.sharedSecret)
        config.idTokenEncryption = configuration.idTokenEncryption
        config.observer = configuration.observer
        if let jwksURI = metadata.jwksURI {
            providerKeys = .cache(
                try JWKSetCache(
                    jwksURI: jwksURI, transport: transport, configuration: configuration.keyCache,
                    observer: configuration.observer))
        } else {
            providerKeys = .keySet(JWKSet(keys: []))  // OAuth-only without a JWK Set: no login, so no ID Token to check
        }
        self.validator = IDTokenValidator(configuration: config, keys: providerKeys)
        if configuration.fapi2Profile, configuration.optOutOfPKCE {
            throw OIDCError(.fapiPKCERequired, "the FAPI 2.0 profile requires PKCE with S256, but the configuration opts out of PKCE")
        }
        if configuration.fapi2Profile {
            // The client-level rules (PAR endpoint, RFC 9207, DPoP, private_key_jwt, algorithms, clock skew),
            // with a code + S256 request standing in for the requests checked again when a login starts.
            guard let placeholder = URL(string: "https://client.invalid/callback") else {
                throw OIDCError(.invalidRequestParameter, "the profile check's placeholder redirect URI is not a URL")
            }
            try FAPI2Profile.check(profileConfiguration(for: try OAuthRequest(clientID: authentication.clientID, redirectURI: placeholder)))
        }
    }

    /// `OIDCClient(issuer: ..., client_id: ..., auth: client_secret_basic)`: no secret.
    public var description: String {
        "OIDCClient(issuer: \(issuer), client_id: \(clientID), auth: \(authentication.methodName))"
    }

    /// Only the issuer, client id and authentication method: `dump` shows no secret or key.
    public var customMirror: Mirror {
        Mirror(self, children: ["issuer": issuer, "clientID": clientID, "authentication": authentication.methodName])
    }

    /// What ``FAPI2Profile`` checks for `request` sent by this client.
    func profileConfiguration(for request: OAuthRequest) -> FAPI2Configuration {
        FAPI2Configuration(
            metadata: metadata, authentication: authentication, dpop: configuration.dpop, request: request,
            pushesAuthorizationRequests: true, idTokenAlgorithms: configuration.allowedAlgorithms,
            leeway: configuration.leeway, clientRequiresIssuerParameter: configuration.requireIssuerParameter)
    }

    /// Whether a login's redirect must carry RFC 9207 `iss`: the provider advertises it, or the client requires it.
    var requiresIssuerParameter: Bool { metadata.requiresIssuerParameter(clientRequires: configuration.requireIssuerParameter) }

    /// Refuses a token response whose `token_type` this client cannot use (RFC 6749 §7.1): with DPoP
    /// configured only `DPoP`, without it never `DPoP` (RFC 9449 §5), and otherwise only the accepted types.
    func requireAcceptedTokenType(_ tokens: TokenResponse) throws {
        let type = tokens.tokenType.lowercased()
        if type != "bearer", type != "dpop", configuration.acceptedTokenTypes.contains(type) { return }  // e.g. N_A, read only
        if configuration.dpop != nil {
            try TokenClient.checkTokenType(tokens, dpopUsed: true)
            return
        }
        if tokens.tokenType.lowercased() == "dpop", configuration.acceptedTokenTypes.contains("dpop") {
            try TokenClient.checkTokenType(tokens, dpopUsed: false)  // listed, but no proof was sent: refused
        }
        guard configuration.acceptedTokenTypes.contains(tokens.tokenType.lowercased()) else {
            throw OIDCError(
                .unsupportedTokenType,
                "the token endpoint returned token_type \"\(tokens.tokenType.prefix(32))\"; this client uses "
                    + configuration.acceptedTokenTypes.sorted().joined(separator: ", "))
        }
    }

    /// An endpoint from the metadata, or `.endpointNotAdvertised` naming it.
    func endpoint(_ url: URL?, _ name: String) throws -> URL {
        guard let url else { throw OIDCError(.endpointNotAdvertised, "the provider metadata has no \(name)") }
        return url
    }
}

extension ClientAuthentication {
    /// The shared secret, for methods that have one (the only key HS* ID Tokens are verified with).
    var sharedSecret: String? {
        switch self {
        case .clientSecretBasic(_, let secret), .clientSecretPost(_, let secret), .clientSecretJWT(_, let secret): return secret
        case .privateKeyJWT, .none, .tlsClientAuth, .selfSignedTLSClientAuth, .appleClientSecret: return nil
        }
    }
}
