import OIDC
import OIDCResourceServer
import Vapor

/// The routes of the shared ``WebApp`` on a Vapor application: the same paths, answers and cookies as the
/// Hummingbird app's (Samples/hummingbird-app/README.md); `/api/resource` behind ``AccessTokenMiddleware``.
extension WebApp {
    func register(on app: Application) {
        app.get { _ in Response(self.index()) }
        app.get("login") { request async -> Response in
            let forwarded = self.options.clientAddressHeader.flatMap { request.headers.first(name: $0) }
            let scope = ClientAddress.scope(peer: request.remoteAddress, forwarded: forwarded)
            return Response(await self.login(WebRequest(request), clientScope: scope))
        }
        app.get("callback") { request async -> Response in Response(await self.callback(WebRequest(request), formBody: nil)) }
        app.on(.POST, "callback", body: .stream) { request async -> Response in
            let body: ByteBuffer?
            do { body = try await request.body.collect(max: 1 << 16).get() } catch { return Response(WebAnswer.text(400, "bad callback\n")) }
            return Response(await self.callback(WebRequest(request), formBody: body.map { String(buffer: $0) } ?? ""))
        }
        app.get("me") { request async -> Response in Response(await self.me(WebRequest(request))) }
        app.get("upstream") { request async -> Response in Response(await self.upstream(WebRequest(request))) }
        app.on(.POST, "backchannel-logout", body: .stream) { request async -> Response in
            let body: ByteBuffer?
            do { body = try await request.body.collect(max: 1 << 16).get() } catch { return Response(WebAnswer.json(400, "{\"error\":\"invalid_request\"}")) }
            return Response(await self.backChannelLogout(body.map { Array(buffer: $0) } ?? []))
        }
        app.get("frontchannel-logout") { request async -> Response in Response(await self.frontChannelLogout(WebRequest(request))) }
        app.get("logout") { request async -> Response in Response(await self.logout(WebRequest(request))) }
        let tokens = AccessTokenMiddleware(
            resourceGuard: resource.tokens, baseURL: options.baseURL.absoluteString, requiredScopes: resource.requiredScopes,
            refusal: { Response(ProtectedResource.refused($0)) })
        app.grouped(tokens).get("api", "resource") { request async throws -> Response in
            guard let token = request.accessToken else { throw OIDCError(.invalidToken, "no access token on the request") }
            return Response(ProtectedResource.allowed(token))
        }
        app.get(resource.metadataURL.path.pathComponents) { _ in Response(self.resource.metadataDocument()) }
        if let requestObjects {
            app.get("request-objects", ":id") { request async -> Response in Response(await requestObjects.answer(id: request.parameters.get("id"))) }
        }
    }
}

extension WebRequest {
    /// The routes' view of a Vapor request.
    init(_ request: Request) {
        self.init(method: request.method.rawValue, query: request.url.query, headers: HeaderFields(request.headers))
    }
}
