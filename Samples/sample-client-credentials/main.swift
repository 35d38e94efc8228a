// sample-client-credentials: a service calling another service as itself.
//
//   swift run sample-client-credentials --issuer URL --client-id ID --client-secret SECRET [--scope S] [--resource URI]
//
// Discovers the provider and gets an access token with the client credentials grant
// (client_secret_basic; RFC 8707 `resource` when given) through a ClientCredentialsTokenSource,
// the cached, single-flight token source a service keeps for its calls. Prints one JSON object,
// never the token:
//   {"token_type": "...", "expires_in": <seconds or null>, "scope": "<granted scope or null>"}
// Exit 0 on success, 1 with the typed error on stderr, 2 on usage errors.
import Foundation
import JOSE
import OIDC
import OIDCNetworking

func usage(_ message: String) -> Never {
    FileHandle.standardError.write(
        Data(
            "sample-client-credentials: \(message)\nusage: sample-client-credentials --issuer URL --client-id ID --client-secret SECRET [--scope S] [--resource URI]\n"
                .utf8))
    exit(2)
}

var values: [String: String] = [:]
var arguments = CommandLine.arguments.dropFirst()
let known: Set<String> = ["--issuer", "--client-id", "--client-secret", "--scope", "--resource"]
while let flag = arguments.popFirst() {
    guard known.contains(flag) else { usage("unknown argument \(flag)") }
    guard let value = arguments.popFirst() else { usage("\(flag) needs a value") }
    guard values[flag] == nil else { usage("\(flag) is given twice") }
    values[flag] = value
}
guard let issuer = values["--issuer"], let clientID = values["--client-id"], let secret = values["--client-secret"] else {
    usage("--issuer, --client-id and --client-secret are required")
}
var resources: [URL] = []
if let text = values["--resource"] {
    guard let resource = URL(string: text), resource.scheme != nil else { usage("--resource is not an absolute URI") }
    resources = [resource]
}

do {
    let transport = URLSessionTransport()
    let metadata = try await Discovery(transport: transport).metadata(for: issuer)
    guard let tokenEndpoint = metadata.tokenEndpoint else { throw OIDCError(.discoveryMissingField, "the provider has no token_endpoint") }
    let client = try TokenClient(
        tokenEndpoint: tokenEndpoint, authentication: .clientSecretBasic(clientID: clientID, secret: secret),
        transport: transport)
    let source = ClientCredentialsTokenSource(client: client, scope: values["--scope"], resources: resources)
    let tokens = try await source.token()
    var output = JSONObject()
    output["token_type"] = .string(tokens.tokenType)
    output["expires_in"] = tokens.expiresIn.map { .integer(Int64($0)) } ?? .null
    output["scope"] = tokens.scope.map { .string($0) } ?? .null
    print(JSONValue.object(output).jsonString())
} catch {
    FileHandle.standardError.write(Data("sample-client-credentials: \(error)\n".utf8))
    exit(1)
}
