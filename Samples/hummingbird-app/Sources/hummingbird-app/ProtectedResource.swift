import Foundation
import HTTPTypes
import Hummingbird
import JOSE
import NIOCore
import OIDC
import OIDCResourceServer

/// `GET /api/resource`: RFC 9068 access tokens presented as `Bearer` or `DPoP` (RFC 9449, the
/// proof's `htu` compared with `<base-url>/api/resource`), or RFC 7662 introspection with
/// `--introspect` (the same presentations: the answer's `cnf` is enforced by the library's one call);
/// required scopes; RFC 6750 / RFC 9449 challenges carrying RFC 9728 `resource_metadata`, and the
/// metadata document itself. A certificate-bound token (`cnf.x5t#S256`, RFC 8705) is accepted only
/// with the client certificate of the TLS connection it came on. All of it is the toolkit's front door,
/// `ResourceGuard`; this type only adapts Hummingbird's request and response to it.
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

    /// `{"sub": ..., "client_id": ..., "scope": [...]}`, or the refusal with its challenges; `clientCertificate` is the
    /// one the TLS connection was made with (`.notPresented` over http). With `--introspect` the token is validated by
    /// introspection, its binding (`cnf.jkt`, `cnf.x5t#S256`) enforced by the same call.
    func answer(_ request: Request, clientCertificate: ClientCertificate = .notPresented) async -> Response {
        switch await check(request, clientCertificate: clientCertificate) {
        case .success(let token): return JSONResponse.make(.ok, Self.identity(of: token).jsonString(sortedKeys: true))
        case .failure(let refusal): return refusal.response
        }
    }

    /// The token of an allowed request, or the refusal as the response to send (status and challenges).
    func check(_ request: Request, clientCertificate: ClientCertificate = .notPresented) async -> Result<ValidatedAccessToken, Refused> {
        switch await tokens.check(
            method: request.method.rawValue, url: url, headers: HeaderFields(request.headers),
            requiredScopes: requiredScopes, clientCertificate: clientCertificate)
        {
        case .allowed(let token):
            return .success(token)
        case .refused(let refusal):
            var response = JSONResponse.make(HTTPResponse.Status(code: refusal.status), "{\"error\":\"access_denied\"}")
            for (name, value) in refusal.headers {
                guard let field = HTTPField.Name(name) else { continue }
                response.headers.append(HTTPField(name: field, value: value))
            }
            return .failure(Refused(response: response))
        }
    }

    /// A refused request's answer.
    struct Refused: Error {
        let response: Response
    }

    /// `{"sub": ..., "client_id": ..., "scope": [...]}` of a validated token.
    static func identity(of token: ValidatedAccessToken) -> JSONValue {
        [
            "sub": token.subject.map(JSONValue.string) ?? .null, "client_id": token.clientID.map(JSONValue.string) ?? .null,
            "scope": .array(token.scopes.sorted().map(JSONValue.string)),
        ]
    }

    /// `GET /.well-known/oauth-protected-resource`: the RFC 9728 document.
    func metadataDocument() -> Response {
        JSONResponse.make(.ok, metadata.jsonString)
    }
}

extension HeaderFields {
    /// The toolkit's header fields from swift-http-types' (Hummingbird's).
    init(_ fields: HTTPFields) {
        self.init()
        for field in fields { add(field.name.rawName, field.value) }
    }
}

/// JSON answers, never cached.
enum JSONResponse {
    static func make(_ status: HTTPResponse.Status, _ text: String) -> Response {
        Response(
            status: status, headers: [.contentType: "application/json", .cacheControl: "no-store"],
            body: ResponseBody(byteBuffer: ByteBuffer(string: text)))
    }

    static func make(_ status: HTTPResponse.Status, bytes: [UInt8]) -> Response {
        Response(
            status: status, headers: [.contentType: "application/json", .cacheControl: "no-store"],
            body: ResponseBody(byteBuffer: ByteBuffer(bytes: bytes)))
    }
}
