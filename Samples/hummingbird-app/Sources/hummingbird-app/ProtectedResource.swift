import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import JOSE
import OIDC
import OIDCResourceServer

/// `GET /api/resource`: RFC 9068 access tokens (or RFC 7662 introspection with `--introspect`),
/// required scopes, and RFC 6750 challenges.
struct ProtectedResource: Sendable {
    let requiredScopes: Set<String>
    let validator: AccessTokenValidator
    let introspector: TokenIntrospector?
    let observer: any OIDCObserver
    let extractor = BearerTokenExtractor()

    init(options: Options, client: OIDCClient, keys: JWKSetCache, transport: any HTTPTransport, observer: any OIDCObserver) throws {
        requiredScopes = options.requiredScopes
        // The resource's identifier: --audience, else its origin (the RFC 8707 resource).
        let audience = options.audience ?? options.baseURL.absoluteString
        validator = AccessTokenValidator(issuer: client.issuer, audience: audience, keys: .cache(keys))
        if options.introspect {
            guard let endpoint = client.metadata.introspectionEndpoint else {
                throw OIDCError(.endpointNotAdvertised, "--introspect: the provider metadata has no introspection_endpoint")
            }
            introspector = try TokenIntrospector(endpoint: endpoint, issuer: client.issuer, authentication: client.authentication,
                                                 transport: transport, audience: .contains(audience))
        } else {
            introspector = nil
        }
        self.observer = observer
    }

    /// `{"sub": ..., "client_id": ..., "scope": [...]}`, or the challenge.
    func answer(_ request: Request) async -> Response {
        let headers = HeaderFields(request.headers)
        let token: String
        do {
            token = try extractor.token(headers: headers, method: request.method.rawValue)
        } catch let error as OIDCError {
            return challenge(BearerChallenge(error: error, requiredScopes: requiredScopes))
        } catch {
            return challenge(BearerChallenge(error: .invalidRequest))
        }
        do {
            let body: JSONValue
            if let introspector {
                let info = try await introspector.validate(token, requiredScopes: requiredScopes)
                body = ["sub": info.subject.map(JSONValue.string) ?? .null, "client_id": info.clientID.map(JSONValue.string) ?? .null,
                        "scope": .array(info.scopes.sorted().map(JSONValue.string))]
            } else {
                let accessToken = try await validator.validate(token, requiredScopes: requiredScopes)
                body = ["sub": .string(accessToken.subject), "client_id": .string(accessToken.clientID),
                        "scope": .array(accessToken.scopes.sorted().map(JSONValue.string))]
            }
            observer.record(OIDCEvent(kind: .accessTokenValidation, outcome: .success))
            return JSONResponse.make(.ok, body.jsonString(sortedKeys: true))
        } catch let error as OIDCError {
            observer.record(OIDCEvent(kind: .accessTokenValidation, outcome: .failure(code: error.code.rawValue)))
            return challenge(BearerChallenge(error: error, requiredScopes: requiredScopes))
        } catch {
            observer.record(OIDCEvent(kind: .accessTokenValidation, outcome: .failure(code: "unexpected")))
            return challenge(BearerChallenge(error: .invalidToken))
        }
    }

    private func challenge(_ challenge: BearerChallenge) -> Response {
        var response = JSONResponse.make(HTTPResponse.Status(code: challenge.status),
                                         "{\"error\":\"\(challenge.error?.rawValue ?? "unauthorized")\"}")
        response.headers[.wwwAuthenticate] = challenge.headerValue
        return response
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
