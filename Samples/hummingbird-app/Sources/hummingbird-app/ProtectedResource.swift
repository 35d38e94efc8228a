import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import JOSE
import OIDC
import OIDCResourceServer

/// `GET /api/resource`: RFC 9068 access tokens presented as `Bearer` or `DPoP` (RFC 9449, the
/// proof's `htu` compared with `<base-url>/api/resource`), or RFC 7662 introspection with
/// `--introspect` (the same presentations: the answer's `cnf` is enforced by the library's one call);
/// required scopes; RFC 6750 / RFC 9449 challenges carrying RFC 9728 `resource_metadata`, and the
/// metadata document itself. A certificate-bound token (`cnf.x5t#S256`, RFC 8705) is accepted only
/// with the client certificate of the TLS connection it came on.
struct ProtectedResource: Sendable {
    let requiredScopes: Set<String>
    let validator: AccessTokenValidator
    let introspector: TokenIntrospector?
    /// The URL clients address this resource by (the DPoP proof's `htu`).
    let url: URL
    /// RFC 9728: this resource's metadata document (`resource` = the app's base URL, `authorization_servers` = the
    /// issuer), served at ``metadataURL`` and named by `resource_metadata` in every challenge.
    let metadata: ProtectedResourceMetadata
    /// `<base-url>/.well-known/oauth-protected-resource` (path inserted when the base URL has one).
    let metadataURL: URL

    init(options: Options, client: OIDCClient, keys: JWKSetCache, transport: any HTTPTransport, replays: any ReplayCache,
         observer: any OIDCObserver) throws {
        requiredScopes = options.requiredScopes
        url = options.url("/api/resource")
        // The resource's identifier: --audience, else its origin (the RFC 8707 resource).
        let audience = options.audience ?? options.baseURL.absoluteString
        var validator = AccessTokenValidator(issuer: client.issuer, audience: audience, keys: .cache(keys),
                                             proofs: DPoPProofValidator(replays: .cache(replays)))
        validator.observer = observer
        self.validator = validator
        var base = options.baseURL.absoluteString
        while base.hasSuffix("/") { base.removeLast() }
        // Both modes take Bearer and DPoP with the same proof rules (one replay cache).
        metadata = try validator.protectedResourceMetadata(resource: base, scopes: options.requiredScopes.isEmpty ? nil : options.requiredScopes.sorted())
        metadataURL = try ProtectedResourceDiscovery.metadataURL(forResource: base)
        if options.introspect {
            guard let endpoint = client.metadata.introspectionEndpoint else {
                throw OIDCError(.endpointNotAdvertised, "--introspect: the provider metadata has no introspection_endpoint")
            }
            var introspector = try TokenIntrospector(endpoint: endpoint, issuer: client.issuer, authentication: client.authentication,
                                                     transport: transport, audience: .contains(audience), proofs: validator.proofs)
            introspector.observer = observer
            self.introspector = introspector
        } else {
            introspector = nil
        }
    }

    /// `{"sub": ..., "client_id": ..., "scope": [...]}`, or the refusal with its challenges; `clientCertificate` is the
    /// one the TLS connection was made with (`.notPresented` over http). With `--introspect` the token is validated by
    /// introspection, its binding (`cnf.jkt`, `cnf.x5t#S256`) enforced by the same call.
    func answer(_ request: Request, clientCertificate: ClientCertificate = .notPresented) async -> Response {
        let headers = HeaderFields(request.headers)
        do {
            let body: JSONValue
            if let introspector {
                let info = try await introspector.validate(method: request.method.rawValue, url: url, headers: headers,
                                                           requiredScopes: requiredScopes, clientCertificate: clientCertificate).introspection
                body = ["sub": info.subject.map(JSONValue.string) ?? .null, "client_id": info.clientID.map(JSONValue.string) ?? .null,
                        "scope": .array(info.scopes.sorted().map(JSONValue.string))]
            } else {
                let token = try await validator.validate(method: request.method.rawValue, url: url, headers: headers,
                                                         requiredScopes: requiredScopes, clientCertificate: clientCertificate).token
                body = ["sub": .string(token.subject), "client_id": .string(token.clientID),
                        "scope": .array(token.scopes.sorted().map(JSONValue.string))]
            }
            return JSONResponse.make(.ok, body.jsonString(sortedKeys: true))
        } catch {
            let oidcError = error as? OIDCError ?? OIDCError(.invalidBearerRequest, "the request could not be read")
            let refusal = AccessTokenRefusal(error: oidcError, requestHeaders: headers, requiredScopes: requiredScopes,
                                             dpopAlgorithms: validator.proofs.challengeAlgorithms)
                .advertising(resourceMetadata: metadataURL)
            var response = JSONResponse.make(HTTPResponse.Status(code: refusal.status), "{\"error\":\"access_denied\"}")
            for (name, value) in refusal.headers {
                guard let field = HTTPField.Name(name) else { continue }
                response.headers.append(HTTPField(name: field, value: value))
            }
            return response
        }
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
        Response(status: status, headers: [.contentType: "application/json", .cacheControl: "no-store"],
                 body: ResponseBody(byteBuffer: ByteBuffer(string: text)))
    }

    static func make(_ status: HTTPResponse.Status, bytes: [UInt8]) -> Response {
        Response(status: status, headers: [.contentType: "application/json", .cacheControl: "no-store"],
                 body: ResponseBody(byteBuffer: ByteBuffer(bytes: bytes)))
    }
}
