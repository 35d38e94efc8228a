// sample-mcp-call: a machine client calling the tool `whoami` of a Model Context Protocol server that the
// toolkit's authorization flow for protected resources opens.
//
//   swift run sample-mcp-call --server URL --client-id ID --client-secret S [--trust-issuer URL] [--allow-host HOST:PORT]...
//                             [--dpop]
//
// Speaks MCP's Streamable HTTP itself (JSON-RPC over POST; answers as JSON or as server-sent events):
// `initialize`; on 401, ProtectedResourceAccess.token(challengedBy:resource:configuration:) goes from the
// challenge's resource_metadata (RFC 9728) to a client-credentials token for exactly --server (RFC 8707
// `resource`), and `initialize` is sent again with it; then `notifications/initialized` and `tools/call whoami`,
// whose text it prints on stdout. The authorization server the resource names is used only if it is
// --trust-issuer (when given) and on a host the fetch policy admits: public hosts on 443, --server's own host
// (the user's choice), and each --allow-host. With --dpop the token is DPoP-bound (RFC 9449) to a key made at start:
// the token request carries a proof (only a `DPoP` token type is accepted) and every MCP request after it goes with
// `Authorization: DPoP` and a fresh proof through DPoPBinding.send. Exit 0 on success, 1 with the typed error on
// stderr, 2 on usage errors.
import Foundation
import JOSE
import OIDC

func usage(_ message: String) -> Never {
    FileHandle.standardError.write(
        Data(
            ("sample-mcp-call: \(message)\nusage: sample-mcp-call --server URL --client-id ID --client-secret S "
                + "[--trust-issuer URL] [--allow-host HOST:PORT]... [--dpop]\n").utf8))
    exit(2)
}

var values: [String: String] = [:]
var allowed: [String] = []
var usesDPoP = false
var arguments = CommandLine.arguments.dropFirst()
let known: Set<String> = ["--server", "--client-id", "--client-secret", "--trust-issuer", "--allow-host"]
while let flag = arguments.popFirst() {
    if flag == "--dpop" {
        guard !usesDPoP else { usage("--dpop is given twice") }
        usesDPoP = true
        continue
    }
    guard known.contains(flag) else { usage("unknown argument \(flag)") }
    guard let value = arguments.popFirst() else { usage("\(flag) needs a value") }
    if flag == "--allow-host" {
        allowed.append(value)
        continue
    }
    guard values[flag] == nil else { usage("\(flag) is given twice") }
    values[flag] = value
}
guard let serverText = values["--server"], let clientID = values["--client-id"], let secret = values["--client-secret"] else {
    usage("--server, --client-id and --client-secret are required")
}
guard let server = URL(string: serverText), server.scheme == "https" || server.scheme == "http", let serverHost = server.host else {
    usage("--server is not an http(s) URL")
}

/// The MCP server answered something other than what the protocol says (the HTTP status and JSON-RPC error named).
struct MCPCallError: Error, CustomStringConvertible {
    let description: String
}

/// One MCP session over Streamable HTTP: the session id and protocol version the server gave, the token once known.
struct MCPSession {
    let endpoint: URL
    let transport: any HTTPTransport
    var token: String?
    /// The key the token is bound to (--dpop): requests then carry `Authorization: DPoP` and a proof.
    var dpop: DPoPBinding?
    var sessionID: String?
    var protocolVersion: String?
    var nextID = 1

    /// Sends one JSON-RPC message; a request (with `id`) returns the HTTP response and the JSON-RPC answer to it.
    mutating func send(_ method: String, _ params: JSONValue, notification: Bool = false) async throws -> (TransportResponse, JSONObject?) {
        var message: JSONObject = ["jsonrpc": "2.0", "method": .string(method), "params": params]
        let id = nextID
        if !notification {
            message["id"] = .integer(Int64(id))
            nextID += 1
        }
        var headers: HeaderFields = ["Content-Type": "application/json", "Accept": "application/json, text/event-stream"]
        if let token, dpop == nil { headers.add("Authorization", "Bearer \(token)") }
        if let sessionID { headers.add("Mcp-Session-Id", sessionID) }
        if let protocolVersion { headers.add("MCP-Protocol-Version", protocolVersion) }
        let body = Array(JSONValue.object(message).jsonString().utf8)
        let request = TransportRequest(method: .post, url: endpoint, headers: headers, body: .bytes(body))
        let response: TransportResponse
        if let token, let dpop {
            response = try await dpop.send(request, accessToken: token, transport: transport)
        } else {
            response = try await transport.send(request)
        }
        guard !notification, response.status == 200 else { return (response, nil) }
        if let session = response.headers["Mcp-Session-Id"] { sessionID = session }
        return (response, try Self.answer(to: id, in: response))
    }

    /// The JSON-RPC response with `id` in a JSON body or in a server-sent event stream's `data:` lines.
    static func answer(to id: Int, in response: TransportResponse) throws -> JSONObject {
        let text = String(decoding: response.body, as: UTF8.self)
        let contentType = response.headers["Content-Type"]?.lowercased() ?? ""
        var candidates: [String] = []
        if contentType.hasPrefix("text/event-stream") {
            var data: [String] = []
            for line in text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline) {  // "\r\n" is one Character
                if line.hasPrefix("data:") {
                    data.append(String(line.dropFirst(5)).trimmingCharacters(in: .whitespaces))
                } else if line.isEmpty, !data.isEmpty {
                    candidates.append(data.joined(separator: "\n"))
                    data = []
                }
            }
            if !data.isEmpty { candidates.append(data.joined(separator: "\n")) }
        } else {
            candidates = [text]
        }
        for candidate in candidates {
            guard case .object(let object)? = try? JSONParser.parse(candidate) else { continue }
            if case .integer(let answered)? = object["id"], answered == Int64(id) { return object }
        }
        throw MCPCallError(description: "the MCP server's answer to request \(id) is not a JSON-RPC response (\(response.status))")
    }
}

do {
    let transport = try LibSSLTransport()
    var session = MCPSession(endpoint: server, transport: transport)
    let initialize: JSONValue = [
        "protocolVersion": "2025-06-18", "capabilities": [:], "clientInfo": ["name": "sample-mcp-call", "version": "1.0"],
    ]
    var (response, answer) = try await session.send("initialize", initialize)
    if response.status == 401 {
        // The server is the user's choice: its own host is admitted; the authorization server it names is checked.
        var policy = RemoteFetchPolicy.publicHostsOnly
        policy.allowedHosts.insert(try RemoteFetchPolicy.HostPort(host: serverHost, port: server.port ?? (server.scheme == "https" ? 443 : 80)))
        for entry in allowed { policy.allowedHosts.insert(try RemoteFetchPolicy.HostPort(entry)) }
        var configuration = ProtectedResourceAccess.Configuration(
            client: .registered(.clientSecretBasic(clientID: clientID, secret: secret)), grant: .clientCredentials,
            trustedIssuers: Set(values["--trust-issuer"].map { [$0] } ?? []))
        if values["--trust-issuer"] == nil { configuration.authorizationServer = .anyListed }
        if usesDPoP {
            let binding = DPoPBinding(key: try DPoPKey.generate())
            configuration.clientConfiguration.dpop = binding
            session.dpop = binding
        }
        configuration.fetchPolicy = policy
        configuration.transport = transport
        let tokens = try await ProtectedResourceAccess.token(challengedBy: response, resource: server, configuration: configuration)
        session.token = tokens.accessToken
        (response, answer) = try await session.send("initialize", initialize)
    }
    guard response.status == 200, let answer, case .object(let result)? = answer["result"] else {
        throw MCPCallError(description: "initialize answered HTTP \(response.status)\(answer?["error"].map { ": \($0.jsonString())" } ?? "")")
    }
    if case .string(let version)? = result["protocolVersion"] { session.protocolVersion = version }
    _ = try await session.send("notifications/initialized", [:], notification: true)
    let (called, reply) = try await session.send("tools/call", ["name": "whoami", "arguments": [:]])
    guard called.status == 200, let reply, case .object(let outcome)? = reply["result"], case .array(let content)? = outcome["content"] else {
        throw MCPCallError(description: "tools/call whoami answered HTTP \(called.status)\(reply?["error"].map { ": \($0.jsonString())" } ?? "")")
    }
    if case .bool(true)? = outcome["isError"] { throw MCPCallError(description: "whoami answered an error") }
    for case .object(let part) in content {
        if case .string(let text)? = part["text"] { print(text) }
    }
} catch {
    FileHandle.standardError.write(Data("sample-mcp-call: \(error)\n".utf8))
    exit(1)
}
