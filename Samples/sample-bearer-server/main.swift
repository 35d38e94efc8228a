// sample-bearer-server: the few lines a server framework adapter needs, on a plain socket.
//
//   swift run sample-bearer-server --issuer URL --audience AUD --port PORT [--require-scope S]... [--requests N] [--dpop-nonce]
//                                  [--logout-client-id ID] [--verified-token-cache N] [--verified-token-max-age SECONDS]
//                                  [--leeway SECONDS]
//
// Listens on 127.0.0.1:PORT (HTTP/1.1, one request per connection, no framework). For each
// request, ResourceGuard's one call with the method, this server's URL
// (http://127.0.0.1:PORT plus the request's path, no query) and the headers: `Authorization:
// Bearer <token>`, or `Authorization: DPoP <token>` with a `DPoP: <proof>` header (RFC 9449 §7:
// a token bound to a key by cnf.jkt only this way, with a proof of that key, each proof once);
// an RFC 9068 access token for AUD with the required scopes, then
//   200 {"sub": ..., "client_id": ..., "scope": [...]}
// or the refusal it answers: 400 / 401 / 403 with WWW-Authenticate (Bearer and/or
// DPoP challenges), 503 when the issuer's keys cannot be fetched. --dpop-nonce: DPoP proofs must carry this server's nonce (401 use_dpop_nonce
// with a DPoP-Nonce header until they do).
// --logout-client-id ID: also POST /backchannel-logout (Back-Channel Logout 1.0: a form with one
// logout_token from the issuer for client ID): 200 {"iss", "sub", "sid"} or 400 {"error": code}.
// One InMemoryReplayCache (the defaults: 100 000 identifiers, 10 000 per scope) holds both the DPoP
// proofs' jtis (scope: the proof key) and the logout tokens' (scope: the issuer), so a client flooding
// proofs of its own key fills only that key's share: it is refused replay_cache_full, and every other
// client's proofs and the issuer's logout tokens still pass.
// --verified-token-cache N: keep up to N verified tokens (0: none; default the library's, 10 000), each at most
// --verified-token-max-age SECONDS (default the library's, 60) and never past its exp; --leeway SECONDS: the clock skew
// allowed for every time rule (default 60). A back-channel logout purges the cached tokens of its session or subject.
// Stops after N requests when --requests is given. Prints "listening on URL" on standard error.
// Exit 0 after N requests, 1 when the socket cannot be opened, 2 on usage errors.
import Foundation
import JOSE
import OIDC
import OIDCNetworking
import OIDCResourceServer

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

func usage(_ message: String) -> Never {
    FileHandle.standardError.write(
        Data(
            "sample-bearer-server: \(message)\nusage: sample-bearer-server --issuer URL --audience AUD --port PORT [--require-scope S]... [--requests N] [--dpop-nonce] [--logout-client-id ID] [--verified-token-cache N (default \(ResourceGuard.VerifiedTokenCache.defaultCapacity); 0: off)] [--verified-token-max-age SECONDS (default \(Int(ResourceGuard.VerifiedTokenCache.defaultMaximumAge)))] [--leeway SECONDS (default 60)]\n"
                .utf8))
    exit(2)
}

var values: [String: String] = [:]
var requiredScopes: Set<String> = []
var requiresNonce = false
var arguments = CommandLine.arguments.dropFirst()
while let flag = arguments.popFirst() {
    if flag == "--dpop-nonce" {
        requiresNonce = true
        continue
    }
    guard let value = arguments.popFirst() else { usage("\(flag) needs a value") }
    switch flag {
    case "--require-scope": requiredScopes.insert(value)
    case "--issuer", "--audience", "--port", "--requests", "--logout-client-id", "--verified-token-cache", "--verified-token-max-age", "--leeway":
        values[flag] = value
    default: usage("unknown argument \(flag)")
    }
}
guard let issuer = values["--issuer"], let audience = values["--audience"] else { usage("--issuer and --audience are required") }
guard let port = values["--port"].flatMap({ UInt16($0) }), port > 0 else { usage("--port must be 1-65535") }
let limit = values["--requests"].map { Int($0) ?? -1 }
if let limit, limit < 1 { usage("--requests must be a positive number") }
var tokenCache = ResourceGuard.VerifiedTokenCache()
if let text = values["--verified-token-cache"] {
    guard let entries = Int(text), entries >= 0 else { usage("--verified-token-cache must be a number of tokens (0: off)") }
    tokenCache.capacity = entries
}
if let text = values["--verified-token-max-age"] {
    guard let seconds = TimeInterval(text), seconds.isFinite, seconds > 0 else { usage("--verified-token-max-age must be a positive number of seconds") }
    tokenCache.maximumAge = seconds
}
var leeway: TimeInterval = 60
if let text = values["--leeway"] {
    guard let seconds = TimeInterval(text), seconds.isFinite, seconds >= 0 else { usage("--leeway must be a number of seconds, 0 or more") }
    leeway = seconds
}

/// One parsed request: what the adapter hands to the toolkit.
struct Request {
    var method = ""
    var path = "/"
    var headers = HeaderFields()
    var body: [UInt8] = []
}

/// Reads one HTTP/1.1 request (head up to 16 KiB, body up to 64 KiB by Content-Length).
func readRequest(_ socket: Int32) -> Request? {
    var data: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 4096)
    let separator: [UInt8] = [13, 10, 13, 10]
    var headEnd: Int?
    while headEnd == nil {
        let count = read(socket, &buffer, buffer.count)
        guard count > 0 else { return nil }
        data += buffer[0..<count]
        guard data.count <= 16_384 + 65_536 else { return nil }
        if data.count >= 4 { headEnd = (0...(data.count - 4)).first { Array(data[$0..<$0 + 4]) == separator } }
        if headEnd == nil, data.count > 16_384 { return nil }
    }
    guard let headEnd, let head = String(validating: data[0..<headEnd], as: UTF8.self) else { return nil }
    var lines = head.components(separatedBy: "\r\n")
    let requestLine = lines.removeFirst().split(separator: " ")
    guard requestLine.count == 3 else { return nil }
    var request = Request()
    request.method = String(requestLine[0])
    request.path = String(requestLine[1].prefix { $0 != "?" && $0 != "#" })
    for line in lines {
        guard let colon = line.firstIndex(of: ":") else { return nil }
        request.headers.add(String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces))
    }
    let length = request.headers["Content-Length"].flatMap { Int($0) } ?? 0
    guard (0...65_536).contains(length) else { return nil }
    request.body = Array(data[(headEnd + 4)...])
    while request.body.count < length {
        let count = read(socket, &buffer, min(buffer.count, length - request.body.count))
        guard count > 0 else { return nil }
        request.body += buffer[0..<count]
    }
    return request
}

func respond(_ socket: Int32, status: Int, headers: [(String, String)] = [], json: String) {
    let reason = [200: "OK", 400: "Bad Request", 401: "Unauthorized", 403: "Forbidden", 503: "Service Unavailable"][status] ?? "Error"
    var text = "HTTP/1.1 \(status) \(reason)\r\nContent-Type: application/json\r\nCache-Control: no-store\r\nConnection: close\r\n"
    for (name, value) in headers { text += "\(name): \(value)\r\n" }
    let body = Array(json.utf8)
    text += "Content-Length: \(body.count)\r\n\r\n"
    let bytes = Array(text.utf8) + body
    _ = bytes.withUnsafeBytes { write(socket, $0.baseAddress, $0.count) }
}

let transport = URLSessionTransport()
let discovery = Discovery(transport: transport), keyCaches = JWKSetCacheRegistry(transport: transport)
// One replay cache for DPoP proofs and logout tokens, each scope (a proof key, the issuer) bounded to its share.
let replays = InMemoryReplayCache()
let frontDoor: ResourceGuard
let logoutValidator: LogoutTokenValidator?
do {
    var configuration = ResourceGuard.Configuration(issuer: issuer, audience: audience)
    configuration.transport = transport
    configuration.dpopReplays = .cache(replays)
    configuration.verifiedTokenCache = tokenCache
    configuration.leeway = leeway
    frontDoor = try await ResourceGuard(configuration: configuration)
    if let clientID = values["--logout-client-id"] {
        guard let jwksURI = try await discovery.metadata(for: issuer).jwksURI else {
            throw OIDCError(.jwksURIMissing, "the issuer publishes no jwks_uri")
        }
        logoutValidator = LogoutTokenValidator(
            issuer: issuer, clientID: clientID, keys: .cache(try await keyCaches.cache(for: jwksURI)),
            replays: replays, leeway: leeway)
    } else {
        logoutValidator = nil
    }
} catch {
    FileHandle.standardError.write(Data("sample-bearer-server: \(error)\n".utf8))
    exit(1)
}
// The nonce DPoP proofs must carry with --dpop-nonce (one per run, RFC 9449 §9).
let nonce: String?
do {
    nonce = requiresNonce ? Base64URL.encode(try SecureRandom.bytes(16)) : nil
} catch {
    FileHandle.standardError.write(Data("sample-bearer-server: no random nonce: \(error)\n".utf8))
    exit(1)
}

#if canImport(Glibc)
let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
#else
let listener = socket(AF_INET, SOCK_STREAM, 0)
#endif
var yes: Int32 = 1
setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
var address = sockaddr_in()
address.sin_family = sa_family_t(AF_INET)
address.sin_port = port.bigEndian
address.sin_addr.s_addr = inet_addr("127.0.0.1")
let bound = withUnsafePointer(to: &address) {
    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
}
guard listener >= 0, bound == 0, listen(listener, 16) == 0 else {
    FileHandle.standardError.write(Data("sample-bearer-server: cannot listen on 127.0.0.1:\(port)\n".utf8))
    exit(1)
}
FileHandle.standardError.write(Data("listening on http://127.0.0.1:\(port)\n".utf8))

var served = 0
while limit.map({ served < $0 }) ?? true {
    let connection = accept(listener, nil, nil)
    guard connection >= 0 else { continue }
    defer { close(connection) }
    served += 1
    guard let request = readRequest(connection) else {
        respond(connection, status: 400, json: #"{"error":"malformed HTTP request"}"#)
        continue
    }
    // Back-channel logout (with --logout-client-id): the logout token in, its subject and session out.
    if let logoutValidator, request.method == "POST", request.path == "/backchannel-logout" {
        do {
            let token = try BackChannelLogoutRequest.logoutToken(fromBody: request.body, contentType: request.headers["Content-Type"])
            let logout = try await logoutValidator.validate(token)
            // The session (or, without one, the subject) ends here: its cached tokens are verified again from now on.
            if let session = logout.sessionID {
                await frontDoor.purge(.session(session))
            } else if let subject = logout.subject {
                await frontDoor.purge(.subject(subject))
            }
            var object: JSONObject = ["iss": .string(logout.issuer)]
            object["sub"] = logout.subject.map { .string($0) }
            object["sid"] = logout.sessionID.map { .string($0) }
            respond(connection, status: 200, json: JSONValue.object(object).jsonString())
        } catch let error as OIDCError {
            respond(connection, status: 400, json: JSONValue.object(["error": .string(error.code.rawValue)]).jsonString())
        } catch {
            respond(connection, status: 400, json: #"{"error":"invalid_request"}"#)
        }
        continue
    }
    // The adapter: method, URL and headers in, token out; errors to the refusal.
    guard request.path.hasPrefix("/"), let url = URL(string: "http://127.0.0.1:\(port)\(request.path)") else {
        respond(connection, status: 400, json: #"{"error":"malformed request target"}"#)
        continue
    }
    switch await frontDoor.check(
        method: request.method, url: url, headers: request.headers, requiredScopes: requiredScopes,
        dpopNonce: nonce)
    {
    case .allowed(let token):
        var object = JSONObject()
        object["sub"] = .string(token.subject ?? "")
        object["client_id"] = .string(token.clientID ?? "")
        object["scope"] = .array(token.scopes.sorted().map { .string($0) })
        respond(connection, status: 200, json: JSONValue.object(object).jsonString())
    case .refused(let refusal):
        respond(
            connection, status: refusal.status, headers: refusal.headers.fields.map { ($0.name, $0.value) },
            json: String(decoding: refusal.body, as: UTF8.self))
    }
}
close(listener)
