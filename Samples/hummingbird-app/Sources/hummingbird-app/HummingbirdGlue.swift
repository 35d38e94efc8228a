import HTTPTypes
import Hummingbird
import NIOCore
import OIDC

/// What a Hummingbird user copies: the routes of the shared ``WebApp`` on a Hummingbird router, the toolkit's
/// header fields from Hummingbird's and its answers (`TransportResponse`) as Hummingbird responses.
extension WebApp {
    func register(on router: Router<AppRequestContext>) {
        router.get("/") { _, _ -> Response in Response(self.index()) }
        router.get("/login") { request, context -> Response in
            let forwarded = options.clientAddressHeader.flatMap { HTTPField.Name($0) }.flatMap { request.headers[$0] }
            let scope = ClientAddress.scope(peer: context.channel.remoteAddress, forwarded: forwarded)
            return Response(await self.login(WebRequest(request), clientScope: scope))
        }
        router.get("/callback") { request, _ -> Response in Response(await self.callback(WebRequest(request), formBody: nil)) }
        router.post("/callback") { request, _ -> Response in
            var request = request
            guard let body = try? await request.collectBody(upTo: 1 << 16) else { return Response(WebAnswer.text(400, "bad callback\n")) }
            return Response(await self.callback(WebRequest(request), formBody: String(buffer: body)))
        }
        router.get("/me") { request, _ -> Response in Response(await self.me(WebRequest(request))) }
        router.get("/upstream") { request, _ -> Response in Response(await self.upstream(WebRequest(request))) }
        router.post("/backchannel-logout") { request, _ -> Response in
            var request = request
            guard let body = try? await request.collectBody(upTo: 1 << 16) else {
                return Response(WebAnswer.json(400, "{\"error\":\"invalid_request\"}"))
            }
            return Response(await self.backChannelLogout(Array(buffer: body)))
        }
        router.get("/frontchannel-logout") { request, _ -> Response in Response(await self.frontChannelLogout(WebRequest(request))) }
        router.get("/logout") { request, _ -> Response in Response(await self.logout(WebRequest(request))) }
        router.get("/api/resource") { request, context -> Response in
            Response(
                await self.resource.answer(
                    method: request.method.rawValue, headers: HeaderFields(request.headers), clientCertificate: await context.clientCertificate()))
        }
        router.get(RouterPath(resource.metadataURL.path)) { _, _ -> Response in Response(self.resource.metadataDocument()) }
        if let requestObjects {
            router.get(RouterPath(RequestObjectHost.pathPrefix + ":id")) { _, context -> Response in
                Response(await requestObjects.answer(id: context.parameters.get("id")))
            }
        }
    }
}

extension WebRequest {
    /// The routes' view of a Hummingbird request.
    init(_ request: Request) {
        self.init(method: request.method.rawValue, query: request.uri.query, headers: HeaderFields(request.headers))
    }
}

extension HeaderFields {
    /// The toolkit's header fields from swift-http-types' (Hummingbird's).
    init(_ fields: HTTPFields) {
        self.init()
        for field in fields { add(field.name.rawName, field.value) }
    }
}

extension Response {
    /// The toolkit's answer (a route's, a refusal's) as a Hummingbird response; a header name HTTP does not allow is dropped.
    init(_ answer: TransportResponse) {
        var headers = HTTPFields()
        for (name, value) in answer.headers {
            if let field = HTTPField.Name(name) { headers.append(HTTPField(name: field, value: value)) }
        }
        self.init(
            status: HTTPResponse.Status(code: answer.status), headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: answer.body)))
    }
}
