// sample-exchange-code: what a partner back end does with the code its app sends.
//
//   swift run sample-exchange-code --issuer URL --client-id ID --client-secret SECRET [--client-auth basic|post]
//       --redirect-uri URI --code CODE --code-verifier VERIFIER [--nonce NONCE] [--save-tokens FILE]
//
// Discovers the provider, exchanges the code (PKCE), validates the ID Token (signature with the
// provider's keys, iss, aud, exp, iat, nonce when given), calls UserInfo (its sub must match), and
// prints one JSON object — never the tokens themselves:
//   {"id_token_claims": {...}, "userinfo": {...}, "access_token_expires_at": <unix seconds or null>,
//    "has_refresh_token": true|false}
// --save-tokens writes the tokens to FILE (mode 0600, atomically) for sample-call-api.
// Exit 0 on success, 1 with the typed error on stderr (e.g. "oauth_error: ... invalid_grant"), 2 on usage errors.
import Foundation
import JOSE
import OIDC
import OIDCNetworking
import OIDCSession

func usage(_ message: String) -> Never {
    FileHandle.standardError.write(Data("sample-exchange-code: \(message)\nusage: sample-exchange-code --issuer URL --client-id ID --client-secret SECRET [--client-auth basic|post] --redirect-uri URI --code CODE --code-verifier VERIFIER [--nonce NONCE] [--save-tokens FILE]\n".utf8))
    exit(2)
}

var values: [String: String] = [:]
var arguments = CommandLine.arguments.dropFirst()
let known: Set<String> = ["--issuer", "--client-id", "--client-secret", "--client-auth", "--redirect-uri", "--code", "--code-verifier",
                          "--nonce", "--save-tokens"]
while let flag = arguments.popFirst() {
    guard known.contains(flag) else { usage("unknown argument \(flag)") }
    guard let value = arguments.popFirst() else { usage("\(flag) needs a value") }
    values[flag] = value
}
for required in ["--issuer", "--client-id", "--client-secret", "--redirect-uri", "--code", "--code-verifier"] where values[required] == nil {
    usage("\(required) is required")
}
let issuer = values["--issuer"]!, clientID = values["--client-id"]!, secret = values["--client-secret"]!
guard let redirectURI = URL(string: values["--redirect-uri"]!) else { usage("--redirect-uri is not a URL") }
let authentication: ClientAuthentication
switch values["--client-auth"] ?? "basic" {
case "basic": authentication = .clientSecretBasic(clientID: clientID, secret: secret)
case "post": authentication = .clientSecretPost(clientID: clientID, secret: secret)
default: usage("--client-auth takes basic or post")
}

do {
    let transport = URLSessionTransport()
    let discovery = Discovery(transport: transport)
    let metadata = try await discovery.metadata(for: issuer)
    guard let tokenEndpoint = metadata.tokenEndpoint else { throw OIDCError(.discoveryMissingField, "the provider has no token_endpoint") }
    let client = TokenClient(tokenEndpoint: tokenEndpoint, authentication: authentication, transport: transport)
    let tokens = try await client.exchangeCode(values["--code"]!, redirectURI: redirectURI, codeVerifier: values["--code-verifier"]!)
    guard let idTokenText = tokens.idToken else { throw OIDCError(.invalidTokenResponse, "the token response has no id_token") }
    let validator = try await IDTokenValidator.discover(issuer: issuer, clientID: clientID, clientSecret: secret, discovery: discovery,
                                                        keyCaches: JWKSetCacheRegistry(transport: transport))
    let idToken = try await validator.validate(idTokenText, expecting: IDTokenExpectations(nonce: values["--nonce"]))
    var userInfo = JSONObject()
    if let endpoint = metadata.userinfoEndpoint {
        userInfo = try await client.userInfo(accessToken: tokens.accessToken, endpoint: endpoint)
        try TokenClient.checkUserInfoSubject(userInfo, idTokenSubject: idToken.subject)
    }
    if let path = values["--save-tokens"] { try await FileTokenStore(path: path).save(tokens) }
    var output = JSONObject()
    output["id_token_claims"] = .object(idToken.claims.object)
    output["userinfo"] = .object(userInfo)
    output["access_token_expires_at"] = tokens.expiresAt.map { .integer(Int64($0.timeIntervalSince1970)) } ?? .null
    output["has_refresh_token"] = .bool(tokens.refreshToken != nil)
    print(JSONValue.object(output).jsonString())
} catch let error as OIDCError {
    FileHandle.standardError.write(Data("sample-exchange-code: \(error)\n".utf8))
    exit(1)
} catch {
    FileHandle.standardError.write(Data("sample-exchange-code: \(error)\n".utf8))
    exit(1)
}
