import Foundation
import JOSE
import OIDC
import OIDCResourceServer

/// `GET /api/resource`: RFC 9068 access tokens presented as `Bearer` or `DPoP` (RFC 9449, the
/// proof's `htu` compared with `<base-url>/api/resource`), or RFC 7662 introspection with
/// `--introspect` (the same presentations: the answer's `cnf` is enforced by the library's one call);
/// required scopes; RFC 6750 / RFC 9449 challenges carrying RFC 9728 `resource_metadata`, and the
/// metadata document itself. A certificate-bound token (`cnf.x5t#S256`, RFC 8705) is accepted only
/// with the client certificate of the TLS connection it came on. All of it is the toolkit's front door,
/// `ResourceGuard`; this type only adapts it to the app's options, each app's glue its framework's request and response.
struct ProtectedResource: Sendable {
    let requiredScopes: Set<String>
    let tokens: ResourceGuard
    /// The URL clients address this resource by (the DPoP proof's `htu`).
    let url: URL
    /// RFC 9728: this resource's metadata document (`resource` = the app's base URL, `authorization_servers` = the
    /// issuer), served at ``metadataURL`` and named by `resource_metadata` in every challenge.
    let metadata: ProtectedResourceMetadata
    /// `<base-url>/.well-known/oauth-protected-resource` (path inserted when the base URL has one).
    let metadataURL: URL

    /// Where a protected resource lives and what it asks of tokens.
    struct Place: Sendable {
        /// The route, under the base URL (the DPoP proof's `htu` is `<base-url><path>`).
        var path: String
        /// The RFC 9728 `resource` (and the metadata's path insertion); `nil`: the base URL.
        var identifier: String?
        /// The audience tokens must carry (RFC 8707); `nil`: `--audience`, else the base URL.
        var audience: String?
        var requiredScopes: Set<String>

        /// `/api/resource`: the base URL as resource, `--audience` and `--require-scope`.
        static func api(_ options: Options) -> Place {
            Place(path: "/api/resource", identifier: nil, audience: options.audience, requiredScopes: options.requiredScopes)
        }

        /// `/mcp` (`--mcp`): `<base-url>/mcp` is the resource and the audience, `--mcp-require-scope` the scopes.
        static func mcp(_ options: Options) -> Place {
            let resource = options.url("/mcp").absoluteString
            return Place(path: "/mcp", identifier: resource, audience: resource, requiredScopes: options.mcpRequiredScopes)
        }
    }

    init(
        options: Options, client: OIDCClient, keys: JWKSetCache, transport: any HTTPTransport, replays: any ReplayCache,
        observer: any OIDCObserver, place: Place? = nil
    ) async throws {
        let place = place ?? .api(options)
        requiredScopes = place.requiredScopes
        url = options.url(place.path)
        var base = options.baseURL.absoluteString
        while base.hasSuffix("/") { base.removeLast() }
        let identifier = place.identifier ?? base
        metadataURL = try ProtectedResourceDiscovery.metadataURL(forResource: identifier)
        // The resource's identifier: --audience, else its origin (the RFC 8707 resource).
        var configuration = ResourceGuard.Configuration(issuer: client.issuer, audience: place.audience ?? options.baseURL.absoluteString)
        configuration.keys = .cache(keys)  // the client's key cache: one per issuer in the app
        configuration.transport = transport
        configuration.dpopReplays = .cache(replays)  // both modes take Bearer and DPoP with the same proof rules
        configuration.observer = observer
        configuration.resourceMetadata = metadataURL
        if let entries = options.verifiedTokenCache { configuration.verifiedTokenCache.capacity = entries }  // 0: off
        if options.introspect {
            guard let endpoint = client.metadata.introspectionEndpoint else {
                throw OIDCError(.endpointNotAdvertised, "--introspect: the provider metadata has no introspection_endpoint")
            }
            var introspection = ResourceGuard.Introspection(authentication: client.authentication)
            introspection.endpoint = endpoint
            configuration.tokens = .introspection(introspection)
        }
        tokens = try await ResourceGuard(configuration: configuration)
        metadata = try tokens.protectedResourceMetadata(
            resource: identifier, scopes: place.requiredScopes.isEmpty ? nil : place.requiredScopes.sorted())
    }

    /// Checks the request's access token with the toolkit's front door: `.allowed(token)` or `.refused(refusal)` with
    /// its status and challenges. `clientCertificate` is the one the TLS connection was made with (`.notPresented`
    /// over http). With `--introspect` the token is validated by introspection, its binding (`cnf.jkt`,
    /// `cnf.x5t#S256`) enforced by the same call.
    func check(method: String, headers: HeaderFields, clientCertificate: ClientCertificate = .notPresented) async -> ResourceGuard.Decision {
        await tokens.check(method: method, url: url, headers: headers, requiredScopes: requiredScopes, clientCertificate: clientCertificate)
    }

    /// The answer for an allowed token: `{"sub": ..., "client_id": ..., "scope": [...]}`.
    static func allowed(_ token: ValidatedAccessToken) -> TransportResponse {
        WebAnswer.json(200, identity(of: token).jsonString(sortedKeys: true))
    }

    /// The answer for a refused token: its status and `WWW-Authenticate` challenges, `{"error":"access_denied"}`.
    static func refused(_ refusal: AccessTokenRefusal) -> TransportResponse {
        var response = WebAnswer.json(refusal.status, "{\"error\":\"access_denied\"}")
        for (name, value) in refusal.headers { response.headers.add(name, value) }
        return response
    }

    /// `GET /api/resource`: the token's answer, or the refusal with its challenges.
    func answer(method: String, headers: HeaderFields, clientCertificate: ClientCertificate = .notPresented) async -> TransportResponse {
        switch await check(method: method, headers: headers, clientCertificate: clientCertificate) {
        case .allowed(let token): return Self.allowed(token)
        case .refused(let refusal): return Self.refused(refusal)
        }
    }

    /// `{"sub": ..., "client_id": ..., "scope": [...]}` of a validated token (`/api/resource`'s answer, MCP's `whoami`).
    static func identity(of token: ValidatedAccessToken) -> JSONValue {
        [
            "sub": token.subject.map(JSONValue.string) ?? .null, "client_id": token.clientID.map(JSONValue.string) ?? .null,
            "scope": .array(token.scopes.sorted().map(JSONValue.string)),
        ]
    }

    /// `GET /.well-known/oauth-protected-resource`: the RFC 9728 document.
    func metadataDocument() -> TransportResponse {
        WebAnswer.json(200, metadata.jsonString)
    }
}
