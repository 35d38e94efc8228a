import Foundation
import HTTPTypes
import Hummingbird
import JOSE
import MCP
import NIOCore
import OIDCResourceServer

/// `<base-url>/mcp` (`--mcp`): a Model Context Protocol server over Streamable HTTP (the swift-sdk's stateless
/// server transport) with one tool, `whoami`, that answers the caller's token: `sub`, `client_id`, scopes.
///
/// Every request first passes the toolkit's resource-server front door (the app's ``ProtectedResource``, the one
/// used for `/api/resource`, placed at `/mcp`): no or a bad token answers 401 with
/// `WWW-Authenticate: Bearer resource_metadata="<base-url>/.well-known/oauth-protected-resource/mcp"` (RFC 9728
/// path insertion), a missing `--mcp-require-scope` 403 `insufficient_scope`; tokens must name `<base-url>/mcp` as
/// audience (RFC 8707); DPoP-bound tokens need their proof (`htu` = `<base-url>/mcp`). Only then does the MCP SDK
/// see the request, on a server made for it (stateless: no session outlives the HTTP exchange).
struct MCPEndpoint: Sendable {
    let resource: ProtectedResource
    /// The Host and Origin values the MCP transport accepts (DNS rebinding protection): the base URL's, and the
    /// loopback address the app listens on.
    let allowedHosts: [String]
    let allowedOrigins: [String]

    init(resource: ProtectedResource, options: Options) {
        self.resource = resource
        let base = options.baseURL
        var hosts = ["127.0.0.1:\(options.port)", "localhost:\(options.port)"]
        var origins: [String] = []
        if let host = base.host(percentEncoded: false), let scheme = base.scheme {
            let authority = base.port.map { "\(host):\($0)" } ?? host
            hosts.append(authority)
            origins.append("\(scheme)://\(authority)")
        }
        allowedHosts = hosts
        allowedOrigins = origins
    }

    /// The routes: `/mcp` for POST (JSON-RPC), GET and DELETE (answered 405 by the stateless transport once allowed),
    /// and its RFC 9728 metadata at `/.well-known/oauth-protected-resource/mcp`.
    func register(on router: Router<AppRequestContext>) {
        router.get(RouterPath(resource.metadataURL.path)) { _, _ -> Response in Response(self.resource.metadataDocument()) }
        let path = RouterPath(resource.url.path)
        for method in [HTTPRequest.Method.post, .get, .delete] {
            router.on(path, method: method) { request, context -> Response in
                await self.answer(request, clientCertificate: await context.clientCertificate())
            }
        }
    }

    /// The answer to one HTTP request on `/mcp`.
    func answer(_ request: Request, clientCertificate: ClientCertificate) async -> Response {
        let token: ValidatedAccessToken
        switch await resource.check(method: request.method.rawValue, headers: HeaderFields(request.headers), clientCertificate: clientCertificate) {
        case .allowed(let allowed): token = allowed
        case .refused(let refusal): return Response(ProtectedResource.refused(refusal))
        }
        var request = request
        guard let body = try? await request.collectBody(upTo: 1 << 20) else {
            return Response(WebAnswer.json(413, "{\"error\":\"request body too large\"}"))
        }
        var headers: [String: String] = [:]
        for field in request.headers {
            let name = field.name.canonicalName
            headers[name] = headers[name].map { "\($0), \(field.value)" } ?? field.value
        }
        let mcpRequest = MCP.HTTPRequest(
            method: request.method.rawValue, headers: headers, body: Data(buffer: body), path: request.uri.path)
        let answer: MCP.HTTPResponse
        do {
            answer = try await Self.serve(mcpRequest, identity: ProtectedResource.identity(of: token), hosts: allowedHosts, origins: allowedOrigins)
        } catch {
            return Response(WebAnswer.json(500, "{\"error\":\"the MCP server could not start\"}"))
        }
        var response = Response(status: HTTPResponse.Status(code: answer.statusCode))
        for (name, value) in answer.headers {
            guard let field = HTTPField.Name(name) else { continue }
            response.headers[field] = value
        }
        response.headers[.cacheControl] = "no-store"
        if let data = answer.bodyData {
            response.body = ResponseBody(byteBuffer: ByteBuffer(bytes: data))
        }
        return response
    }

    /// One MCP server for one HTTP exchange: `initialize`, `tools/list`, `tools/call whoami` (the caller's `identity`).
    static func serve(_ request: MCP.HTTPRequest, identity: JSONValue, hosts: [String], origins: [String]) async throws -> MCP.HTTPResponse {
        let transport = StatelessHTTPServerTransport(
            validationPipeline: StandardValidationPipeline(validators: [
                OriginValidator(allowedHosts: hosts, allowedOrigins: origins),
                AcceptHeaderValidator(mode: .jsonOnly),
                ContentTypeValidator(),
                ProtocolVersionValidator(),
            ]))
        let server = MCP.Server(name: "hummingbird-app", version: "1.0.0", capabilities: .init(tools: .init(listChanged: false)))
        await server.withMethodHandler(ListTools.self) { _ in
            .init(tools: [
                Tool(
                    name: "whoami", description: "The caller's access token: its sub, client_id and scopes",
                    inputSchema: .object(["type": .string("object"), "properties": .object([:])]))
            ])
        }
        let text = identity.jsonString(sortedKeys: true)
        await server.withMethodHandler(CallTool.self) { params in
            guard params.name == "whoami" else {
                return .init(content: [.text(text: "unknown tool \(params.name)", annotations: nil, _meta: nil)], isError: true)
            }
            return .init(content: [.text(text: text, annotations: nil, _meta: nil)], isError: false)
        }
        try await server.start(transport: transport)
        let answer = await transport.handleRequest(request)
        await server.stop()
        return answer
    }
}
