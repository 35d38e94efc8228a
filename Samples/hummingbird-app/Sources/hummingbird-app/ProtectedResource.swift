import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import JOSE
import OIDC
import OIDCResourceServer

/// `GET /api/resource`: RFC 9068 access tokens presented as `Bearer` or `DPoP` (RFC 9449, the
/// proof's `htu` compared with `<base-url>/api/resource`), or RFC 7662 introspection with
/// `--introspect` (Bearer only); required scopes; RFC 6750 / RFC 9449 challenges. A certificate-bound token
/// (`cnf.x5t#S256`, RFC 8705) is accepted only with the client certificate of the TLS connection it came on.
struct ProtectedResource: Sendable {
    let requiredScopes: Set<String>
    let validator: AccessTokenValidator
    let introspector: TokenIntrospector?
    /// The URL clients address this resource by (the DPoP proof's `htu`).
    let url: URL
    let extractor = BearerTokenExtractor()

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
        if options.introspect {
            guard let endpoint = client.metadata.introspectionEndpoint else {
                throw OIDCError(.endpointNotAdvertised, "--introspect: the provider metadata has no introspection_endpoint")
            }
            var introspector = try TokenIntrospector(endpoint: endpoint, issuer: client.issuer, authentication: client.authentication,
                                                     transport: transport, audience: .contains(audience))
            introspector.observer = observer
            self.introspector = introspector
        } else {
            introspector = nil
        }
    }

    /// `{"sub": ..., "client_id": ..., "scope": [...]}`, or the refusal with its challenges; `clientCertificate` is the
    /// one the TLS connection was made with (`.notPresented` over http).
    func answer(_ request: Request, clientCertificate: ClientCertificate = .notPresented) async -> Response {
        let headers = HeaderFields(request.headers)
        if let introspector { return await introspected(headers, introspector, clientCertificate: clientCertificate) }
        do {
            let presented = try await validator.validate(method: request.method.rawValue, url: url, headers: headers,
                                                         requiredScopes: requiredScopes, clientCertificate: clientCertificate)
            let token = presented.token
            let body: JSONValue = ["sub": .string(token.subject), "client_id": .string(token.clientID),
                                   "scope": .array(token.scopes.sorted().map(JSONValue.string))]
            return JSONResponse.make(.ok, body.jsonString(sortedKeys: true))
        } catch {
            let oidcError = error as? OIDCError ?? OIDCError(.invalidBearerRequest, "the request could not be read")
            let refusal = AccessTokenRefusal(error: oidcError, requestHeaders: headers, requiredScopes: requiredScopes,
                                             dpopAlgorithms: validator.proofs.challengeAlgorithms)
            var response = JSONResponse.make(HTTPResponse.Status(code: refusal.status), "{\"error\":\"access_denied\"}")
            for (name, value) in refusal.headers {
                guard let field = HTTPField.Name(name) else { continue }
                response.headers.append(HTTPField(name: field, value: value))
            }
            return response
        }
    }

    /// Introspection (`--introspect`): Bearer tokens; a token the provider says is bound (`cnf`) passes only when
    /// bound to the connection's client certificate (`x5t#S256`, RFC 8705 §3.2); any other binding is refused.
    private func introspected(_ headers: HeaderFields, _ introspector: TokenIntrospector, clientCertificate: ClientCertificate) async -> Response {
        do {
            let token = try extractor.token(headers: headers)
            let info = try await introspector.validate(token, requiredScopes: requiredScopes)
            if info.members["cnf"] != nil {
                guard let confirmation = try info.confirmation, confirmation.jwkThumbprint == nil, confirmation.certificateThumbprint != nil else {
                    throw OIDCError(.dpopBoundTokenAsBearer, "the introspected token is bound (cnf) to a key, not a certificate, and was presented as Bearer")
                }
                try confirmation.requireCertificate(clientCertificate)
            }
            let body: JSONValue = ["sub": info.subject.map(JSONValue.string) ?? .null, "client_id": info.clientID.map(JSONValue.string) ?? .null,
                                   "scope": .array(info.scopes.sorted().map(JSONValue.string))]
            return JSONResponse.make(.ok, body.jsonString(sortedKeys: true))
        } catch {
            let challenge = (error as? OIDCError).map { BearerChallenge(error: $0, requiredScopes: requiredScopes) }
                ?? BearerChallenge(error: .invalidToken)
            var response = JSONResponse.make(HTTPResponse.Status(code: challenge.status), "{\"error\":\"access_denied\"}")
            response.headers[.wwwAuthenticate] = challenge.headerValue
            return response
        }
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
