// Compiles only while no toolkit module declares a name a Vapor app uses: this file imports Vapor (with
// everything it re-exports: NIO's, ConsoleKit's, RoutingKit's, Crypto's names ...) and every toolkit module,
// and spells Vapor's names unqualified. An ambiguity (`'Request' is ambiguous for type lookup`) fails the app's
// test script (Samples/hummingbird-app/Tests/run.sh builds this target with APP=vapor).
import Foundation
import JOSE
import OIDC
import OIDCNetworking
import OIDCPostgres
import OIDCResourceServer
import OIDCSession
import Vapor

/// Vapor's names: application, routing, requests and responses, middleware, storage, errors.
public func ecosystemVapor(_ app: Application) throws {
    struct Key: StorageKey { typealias Value = String }
    struct Pass: AsyncMiddleware {
        func respond(to request: Request, chainingTo next: any AsyncResponder) async throws -> Response {
            try await next.respond(to: request)
        }
    }
    app.storage[Key.self] = "check"
    let routes: any RoutesBuilder = app.grouped(Pass())
    routes.get("check", ":id") { (request: Request) async throws -> Response in
        guard let id = request.parameters.get("id") else { throw Abort(.badRequest) }
        var headers = HTTPHeaders()
        headers.add(name: .contentType, value: "text/plain")
        let cookies: HTTPCookies = request.cookies
        _ = (cookies, request.url as URI, request.method as HTTPMethod, request.session as Session, Environment.production)
        return Response(status: HTTPResponseStatus.ok, headers: headers, body: .init(string: id))
    }
    _ = (PathComponent.constant("check"), SHA256.hash(data: Data()), SymmetricKey(size: .bits256), ByteBuffer(), Logger(label: "check"))
    _ = [String(describing: (any Command).self), String(describing: WebSocket.self), String(describing: (any Client).self)]
}

/// The toolkit's names next to them, one symbol of each toolkit module so each import is used.
public func toolkitNames() throws -> (TransportRequest, TransportResponse, HeaderFields, [String]) {
    let url = try SecureURLPolicy.check("https://example.com/api", what: "check")
    let modules = [
        String(describing: JWSAlgorithm.rs256), String(describing: OIDCClient.self), String(describing: URLSessionTransport.self),
        String(describing: AuthenticatedSession.self), String(describing: ResourceGuard.self), String(describing: PostgresPendingLoginStore.self),
    ]
    return (
        TransportRequest(method: .post, url: url, headers: ["Accept": "application/json"], body: .bytes([])), TransportResponse(status: 200), HeaderFields(),
        modules
    )
}
