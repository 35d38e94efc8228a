// sample-exchange-code: what a partner back end does with the code its app sends.
//
//   swift run sample-exchange-code --issuer URL --client-id ID --client-secret SECRET [--client-auth basic|post]
//       --redirect-uri URI --code CODE --code-verifier VERIFIER [--nonce NONCE] [--save-tokens FILE]
//       [--decryption-key PATH]... [--id-token-encrypted-response-alg ALG] [--userinfo-signed]
//
// One OIDCClient (discovery once): the code is redeemed with the PKCE verifier, a token_type other than
// Bearer is refused (unsupported_token_type), the ID Token is validated (signature with the provider's
// keys, iss, aud, exp, iat, nonce when given), UserInfo is called (its sub must match), and one JSON object
// is printed — never the tokens themselves:
//   {"id_token_claims": {...}, "userinfo": {...}, "access_token_expires_at": <unix seconds or null>,
//    "has_refresh_token": true|false}
// --save-tokens writes the tokens to FILE (mode 0600, atomically) for sample-call-api.
// --decryption-key (repeatable; a JWK — oct too —, a JWK Set or a PEM private key) decrypts whatever arrives
// encrypted (ID Token, UserInfo); the client secret serves symmetric key management (OpenID Connect Core §10.2).
// --id-token-encrypted-response-alg ALG says the client registered encrypted ID Tokens: a plain one is refused.
// --userinfo-signed says the client registered signed UserInfo: a JSON answer is refused. UserInfo is printed
// the same whether it came as JSON, a signed JWT, an encrypted one, or both.
// Exit 0 on success, 1 with the typed error on stderr (e.g. "oauth_error: ... invalid_grant"), 2 on usage errors.
import Foundation
import JOSE
import OIDC
import OIDCNetworking
import OIDCSession

func usage(_ message: String) -> Never {
    FileHandle.standardError.write(Data("sample-exchange-code: \(message)\nusage: sample-exchange-code --issuer URL --client-id ID --client-secret SECRET [--client-auth basic|post] --redirect-uri URI --code CODE --code-verifier VERIFIER [--nonce NONCE] [--save-tokens FILE] [--decryption-key PATH]... [--id-token-encrypted-response-alg ALG] [--userinfo-signed]\n".utf8))
    exit(2)
}

var values: [String: String] = [:]
var arguments = CommandLine.arguments.dropFirst()
let known: Set<String> = ["--issuer", "--client-id", "--client-secret", "--client-auth", "--redirect-uri", "--code", "--code-verifier",
                          "--nonce", "--save-tokens"]
var decryptionKeyPaths: [String] = []
var userInfoSigned = false
while let flag = arguments.popFirst() {
    if flag == "--userinfo-signed" { userInfoSigned = true; continue }
    guard known.contains(flag) || flag == "--decryption-key" || flag == "--id-token-encrypted-response-alg" else { usage("unknown argument \(flag)") }
    guard let value = arguments.popFirst() else { usage("\(flag) needs a value") }
    if flag == "--decryption-key" { decryptionKeyPaths.append(value) } else { values[flag] = value }
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

var configuration = OIDCClient.Configuration()
if let name = values["--id-token-encrypted-response-alg"] {
    guard let algorithm = JWEKeyAlgorithm(rawValue: name) else { usage("--id-token-encrypted-response-alg: \(name) is not a supported JWE algorithm") }
    configuration.idTokenEncryption = ResponseEncryption(algorithm: algorithm, encryption: nil)
}
if userInfoSigned { configuration.userInfoFormat = .signed }

do {
    var keys: [JWK] = []
    for path in decryptionKeyPaths {
        do {
            keys += try JWK.keys(fromFileText: String(contentsOfFile: path, encoding: .utf8))
        } catch let error as JOSEError {
            throw error
        } catch {
            usage("--decryption-key \(path) cannot be read")
        }
    }
    configuration.decryptionKeys = JWEDecryptionKeys(keys: keys)
    let client = try await OIDCClient.discover(issuer: issuer, authentication: authentication, transport: URLSessionTransport(),
                                               configuration: configuration)
    // The login the app started, rebuilt from what it handed over: the verifier and the nonce it sent.
    let request = OAuthRequest(clientID: clientID, redirectURI: redirectURI, state: try .random(),
                               nonce: try values["--nonce"].map(Nonce.init),
                               pkce: PKCE(verifier: try CodeVerifier(values["--code-verifier"]!)))
    let login = try await client.redeemCode(values["--code"]!, for: try client.startLogin(request))
    let userInfo = client.metadata.userinfoEndpoint == nil ? JSONObject() : try await client.userInfo(login.tokens)
    if let path = values["--save-tokens"] { try await FileTokenStore(path: path).save(login.tokens) }
    var output = JSONObject()
    output["id_token_claims"] = .object(login.idToken.claims.object)
    output["userinfo"] = .object(userInfo)
    output["access_token_expires_at"] = login.tokens.expiresAt.flatMap { Int64(exactly: $0.timeIntervalSince1970.rounded(.towardZero)) }.map(JSONValue.integer) ?? .null
    output["has_refresh_token"] = .bool(login.tokens.refreshToken != nil)
    print(JSONValue.object(output).jsonString())
} catch {
    FileHandle.standardError.write(Data("sample-exchange-code: \(error)\n".utf8))
    exit(1)
}
