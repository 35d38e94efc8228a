// sample-call-api: calls an API with the tokens saved by sample-exchange-code, through the
// OIDCClient's AuthenticatedSession, which refreshes once on a 401 (token type and refreshed ID Token checked).
//
//   swift run sample-call-api --issuer URL --client-id ID --client-secret SECRET [--client-auth basic|post] --tokens FILE URL
//
// GETs URL (its origin is the only one that receives the token), prints the HTTP status on the first
// line and the body after it, and saves refreshed tokens back to FILE.
// Exit 0 when the final status is 2xx, 1 otherwise; 3 when the refresh is refused (the logged-out event
// is printed on stderr and FILE is emptied); 2 on usage or setup errors.
import Foundation
import OIDC
import OIDCNetworking
import OIDCSession

func usage(_ message: String) -> Never {
    FileHandle.standardError.write(
        Data(
            "sample-call-api: \(message)\nusage: sample-call-api --issuer URL --client-id ID --client-secret SECRET [--client-auth basic|post] --tokens FILE URL\n"
                .utf8))
    exit(2)
}

var values: [String: String] = [:]
var target: String?
var arguments = CommandLine.arguments.dropFirst()
let known: Set<String> = ["--issuer", "--client-id", "--client-secret", "--client-auth", "--tokens"]
while let argument = arguments.popFirst() {
    if known.contains(argument) {
        guard let value = arguments.popFirst() else { usage("\(argument) needs a value") }
        values[argument] = value
    } else if argument.hasPrefix("--") || target != nil {
        usage("unexpected argument \(argument)")
    } else {
        target = argument
    }
}
for required in ["--issuer", "--client-id", "--client-secret", "--tokens"] where values[required] == nil { usage("\(required) is required") }
guard let target, let url = URL(string: target), url.scheme != nil else { usage("the URL to call is required") }
let clientID = values["--client-id"]!, secret = values["--client-secret"]!
let authentication: ClientAuthentication
switch values["--client-auth"] ?? "basic" {
case "basic": authentication = .clientSecretBasic(clientID: clientID, secret: secret)
case "post": authentication = .clientSecretPost(clientID: clientID, secret: secret)
default: usage("--client-auth takes basic or post")
}

let transport = URLSessionTransport()
let store = FileTokenStore(path: values["--tokens"]!)
let session: AuthenticatedSession
do {
    let client = try await OIDCClient.discover(issuer: values["--issuer"]!, authentication: authentication, transport: transport)
    session = try await client.session(configuration: .init(allowedOrigins: [url], store: store, proactiveRefreshMargin: nil))
    guard await session.currentTokens != nil else { throw OIDCError(.notAuthenticated, "\(store.path) holds no tokens: log in first") }
} catch {
    FileHandle.standardError.write(Data("sample-call-api: \(error)\n".utf8))
    exit(2)
}

let events = Task {
    for await event in session.events {
        if case .loggedOut = event { FileHandle.standardError.write(Data("sample-call-api: session event: \(event)\n".utf8)) }
    }
}
do {
    let response = try await session.send(TransportRequest(method: "GET", url: url, headers: ["Accept": "application/json"]))
    print(response.status)
    print(String(decoding: response.body, as: UTF8.self))
    exit((200..<300).contains(response.status) ? 0 : 1)
} catch let error as OIDCError where error.code == .loggedOut {
    try? await Task.sleep(nanoseconds: 50_000_000)  // let the event line reach stderr first
    events.cancel()
    FileHandle.standardError.write(Data("sample-call-api: \(error)\n".utf8))
    exit(3)
} catch {
    FileHandle.standardError.write(Data("sample-call-api: \(error)\n".utf8))
    exit(1)
}
