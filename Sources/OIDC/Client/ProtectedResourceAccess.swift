#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// From a protected resource's refusal (401 with an RFC 9728 challenge) to an access token for exactly that
/// resource: the authorization flow the Model Context Protocol requires of its clients.
///
/// ``token(challengedBy:resource:configuration:)`` reads the challenge's `resource_metadata`, fetches the
/// document through ``/OIDCCore/ProtectedResourceDiscovery`` (the fetch policy applies; the document's `resource` must equal
/// the URL the client reached), picks the authorization server it names (``Configuration/authorizationServer``,
/// checked against the fetch policy), discovers it (RFC 8414, then OpenID Connect Discovery), registers a client
/// dynamically (RFC 7591) when asked, and gets a token with the RFC 8707 `resource` indicator: client credentials
/// for a machine client, or the authorization code flow with PKCE through ``OIDCClient/startLogin(_:)`` and
/// ``OIDCClient/finishLogin(_:callback:)``. The caller retries its request with the token.
///
/// DPoP (RFC 9449): with a ``DPoPBinding`` as ``Configuration/clientConfiguration``'s `dpop`, the token request carries
/// a proof of its key and only a DPoP-bound token (`token_type` `DPoP`) is accepted; the caller then sends the resource
/// call through that binding, ``DPoPBinding/send(_:accessToken:transport:observer:)``, which adds the proof for it.
public enum ProtectedResourceAccess {
    /// How the client is known to the authorization server, which grant it uses, and which servers it may trust.
    public struct Configuration: Sendable {
        /// How the client is known at the authorization server.
        public enum Client: Sendable {
            /// Registered beforehand: its client ID and authentication at the token endpoint.
            case registered(ClientAuthentication)
            /// Registered dynamically (RFC 7591) at the server the resource names, with this metadata.
            case dynamic(ClientMetadata, initialAccessToken: String?)
        }

        /// How the token is obtained.
        public enum Grant: Sendable {
            /// The client credentials grant (RFC 6749 §4.4): a machine client acting as itself.
            case clientCredentials
            /// The authorization code flow with PKCE: `authorize` takes the authorization URL to the user's agent and
            /// returns the callback that came back to `redirectURI`.
            case authorizationCode(redirectURI: URL, authorize: @Sendable (URL) async throws -> AuthorizationCallback)
        }

        /// How the client is known at the authorization server.
        public var client: Client
        /// How the token is obtained.
        public var grant: Grant
        /// The scopes asked for; empty: the resource metadata's `scopes_supported` (none when it has none).
        /// For the authorization code flow with an OpenID provider, `openid` is added.
        public var scopes: [String] = []
        /// Which of the servers the resource lists the client uses (default: only the issuers the caller trusts,
        /// RFC 9728 §7.6; ``/OIDCCore/ProtectedResourceMetadata/AuthorizationServerChoice/anyListed`` is an explicit opt-in).
        public var authorizationServer: ProtectedResourceMetadata.AuthorizationServerChoice
        /// The hosts the resource metadata and a server the resource picked may be on (default: public hosts on 443).
        public var fetchPolicy: RemoteFetchPolicy = .publicHostsOnly
        /// The HTTP transport; `nil`: a `LibSSLTransport` trusting the system's CAs.
        public var transport: (any HTTPTransport)?
        /// The client's configuration (observer, clock, DPoP ...): its `dpop` binds the token to that key.
        public var clientConfiguration = OIDCClient.Configuration()

        /// A configuration for `client` using `grant` at one of `trustedIssuers`.
        public init(client: Client, grant: Grant, trustedIssuers: Set<String>) {
            self.client = client
            self.grant = grant
            authorizationServer = .trusted(trustedIssuers)
        }
    }

    /// An access token for `resource`, from the 401 `response` it answered.
    /// - Parameters:
    ///   - response: the resource's refusal (its `WWW-Authenticate` `resource_metadata`; without one, the
    ///     resource's well-known metadata URL).
    ///   - resource: the URL the client called: the metadata's `resource` must equal it, and the token is asked for it.
    ///   - configuration: client, grant, trusted servers, fetch policy.
    /// - Throws: ``/OIDCCore/OIDCError``: those of `ProtectedResourceDiscovery.fetch(challengedBy:resource:transport:observer:fetchPolicy:)`
    ///   (`.resourceMetadataMismatch`, `.resourceMetadataHostRefused`, ...), `.noTrustedAuthorizationServer`, discovery
    ///   errors of both documents, registration errors, `.notAnOpenIDProvider` (the authorization code flow needs an
    ///   OpenID provider here), and the token endpoint's.
    public static func token(
        challengedBy response: TransportResponse, resource: URL, configuration: Configuration
    ) async throws -> TokenResponse {
        let transport = try configuration.transport ?? LibSSLTransport()
        let observer = configuration.clientConfiguration.observer
        let document = try await ProtectedResourceDiscovery.fetch(
            challengedBy: response, resource: resource.absoluteString, transport: transport, observer: observer,
            fetchPolicy: configuration.fetchPolicy)
        let issuer = try await document.authorizationServer(configuration.authorizationServer, fetchPolicy: configuration.fetchPolicy)
        let metadata: ProviderMetadata
        do {
            metadata = try await Discovery.fetchAuthorizationServer(issuer: issuer, transport: transport, observer: observer)
        } catch let error as OIDCError where error.code == .discoveryHTTPStatus {
            // RFC 8414 first; a server publishing only OpenID Connect Discovery answers 404 there.
            metadata = try await Discovery.fetch(issuer: issuer, transport: transport, observer: observer)
        }
        let authentication: ClientAuthentication
        switch configuration.client {
        case .registered(let known):
            authentication = known
        case .dynamic(let clientMetadata, let initialAccessToken):
            let registrar = try ClientRegistrar(metadata: metadata, transport: transport, observer: observer)
            authentication = try await registrar.register(clientMetadata, initialAccessToken: initialAccessToken).authentication()
        }
        let client = try OIDCClient(
            authorizationServerMetadata: metadata, authentication: authentication, transport: transport,
            configuration: configuration.clientConfiguration)
        let scopes = configuration.scopes.isEmpty ? (document.scopesSupported ?? []) : configuration.scopes
        switch configuration.grant {
        case .clientCredentials:
            return try await client.tokenClient.clientCredentials(
                scope: scopes.isEmpty ? nil : scopes.joined(separator: " "), resources: [resource])
        case .authorizationCode(let redirectURI, let authorize):
            var login = LoginRequest(redirectURI: redirectURI, scopes: scopes.contains("openid") ? scopes : ["openid"] + scopes)
            login.resources = [resource]
            let pending = try await client.startLogin(login)
            let callback = try await authorize(pending.url)
            return try await client.finishLogin(pending, callback: callback).tokens
        }
    }
}
