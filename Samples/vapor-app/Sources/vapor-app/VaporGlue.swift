import Foundation
import OIDC
import OIDCResourceServer
import SwiftASN1
import Vapor
import X509

// The glue a Vapor 4 user copies to put the toolkit's front doors behind Vapor: header fields both ways, the
// toolkit's answers and refusals as `Response`s, an access-token middleware that puts the validated token on the
// request, the client in the application's storage, and toolkit errors as HTTP answers.

extension HeaderFields {
    /// The toolkit's header fields from Vapor's, every field in order (repeated names kept apart).
    init(_ headers: HTTPHeaders) {
        self.init()
        for (name, value) in headers { add(name, value) }
    }
}

extension HTTPHeaders {
    /// Vapor's header fields from the toolkit's (each `Set-Cookie` a field of its own).
    init(_ fields: HeaderFields) { self.init(fields.map { ($0.name, $0.value) }) }
}

extension Response {
    /// The toolkit's answer (a route's, a back-channel logout's, a refusal's) as a Vapor response.
    convenience init(_ answer: TransportResponse) {
        self.init(status: HTTPResponseStatus(statusCode: answer.status), headers: HTTPHeaders(answer.headers), body: .init(data: Data(answer.body)))
    }

    /// A refused access token: its status, `WWW-Authenticate` challenges, `DPoP-Nonce` and error body.
    convenience init(_ refusal: AccessTokenRefusal) {
        self.init(TransportResponse(status: refusal.status, headers: refusal.headers, body: refusal.body))
    }
}

extension Application {
    private struct OIDCClientKey: StorageKey { typealias Value = OIDCClient }

    /// The application's one `OIDCClient` (one provider metadata, one key cache), set once at start.
    var oidcClient: OIDCClient? {
        get { storage[OIDCClientKey.self] }
        set { storage[OIDCClientKey.self] = newValue }
    }
}

extension Request {
    private struct AccessTokenKey: StorageKey { typealias Value = ValidatedAccessToken }

    /// The access token ``AccessTokenMiddleware`` accepted for this request; `nil` on a route without it.
    var accessToken: ValidatedAccessToken? {
        get { storage[AccessTokenKey.self] }
        set { storage[AccessTokenKey.self] = newValue }
    }

    /// The certificate the client authenticated the TLS connection with (Vapor keeps it when the server's
    /// `customCertificateVerifyCallbackWithMetadata` verified it), for certificate-bound tokens (RFC 8705).
    var clientCertificate: ClientCertificate {
        guard let leaf = peerCertificateChain?.leaf else { return .notPresented }
        var serializer = DER.Serializer()
        guard (try? serializer.serialize(leaf)) != nil else { return .notPresented }
        return .der(serializer.serializedBytes)
    }
}

/// Lets a request through only with an access token the toolkit's `ResourceGuard` accepts (JWT or introspected;
/// `Bearer` or `DPoP` with the proof's `htu` = `baseURL` + the path; certificate-bound with the connection's
/// certificate; the required scopes) and puts it on `request.accessToken`; a refusal is answered with its status
/// and challenges (`refusal` shapes that answer).
struct AccessTokenMiddleware: AsyncMiddleware {
    let resourceGuard: ResourceGuard
    /// The origin clients address this server by (`https://api.example.com`).
    let baseURL: String
    var requiredScopes: Set<String> = []
    var refusal: @Sendable (AccessTokenRefusal) -> Response = { Response($0) }

    func respond(to request: Request, chainingTo next: any AsyncResponder) async throws -> Response {
        guard let url = URL(string: baseURL + request.url.path) else { throw Abort(.badRequest) }
        switch await resourceGuard.check(
            method: request.method.rawValue, url: url, headers: HeaderFields(request.headers), requiredScopes: requiredScopes,
            clientCertificate: request.clientCertificate)
        {
        case .allowed(let token):
            request.accessToken = token
            return try await next.respond(to: request)
        case .refused(let refused):
            request.logger.info("access token refused: \(refused.cause.code.rawValue)")
            return refusal(refused)
        }
    }
}

/// Answers a toolkit error thrown by a route with the status of its category (`OIDCError.suggestedHTTPStatus`:
/// 400, 401, 502, 503, 500) and `{"error": "<code>"}`; the reason goes to the log only.
struct OIDCErrorMiddleware: AsyncMiddleware {
    func respond(to request: Request, chainingTo next: any AsyncResponder) async throws -> Response {
        do { return try await next.respond(to: request) } catch let error as OIDCError {
            request.logger.info("\(error.code.rawValue): \(error.reason)")
            let body = "{\"error\":\"\(error.code.rawValue)\"}"
            return Response(
                status: HTTPResponseStatus(statusCode: error.suggestedHTTPStatus), headers: ["Content-Type": "application/json"], body: .init(string: body))
        }
    }
}
