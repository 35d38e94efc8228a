// sample-exchange-code: what a partner back end does with the code its app sends.
//
//   swift run sample-exchange-code --issuer URL --client-id ID --client-secret SECRET [--client-auth basic|post]
//       --redirect-uri URI --code CODE --code-verifier VERIFIER [--nonce NONCE] [--save-tokens FILE]
//   swift run sample-exchange-code --issuer URL --client-id ID --client-auth tls_client_auth --client-cert FILE
//       --client-key FILE [--ca-file FILE] --redirect-uri URI --code CODE --code-verifier VERIFIER ...
//
// With tls_client_auth (RFC 8705 §2.1) there is no --client-secret: the client certificate (PEM, with its
// unencrypted PEM key) is presented in the TLS handshake by LibSSLTransport, the body carries client_id
// only, and the provider's mtls_endpoint_aliases (token_endpoint, userinfo_endpoint, ...) are called when
// it publishes them; a certificate-bound access token then goes to UserInfo over the same connection setup.
// --ca-file: the only CA trusted for the provider's TLS (else the system's trust store).
//
// One OIDCClient (discovery once): the code is redeemed with the PKCE verifier, a token_type other than
// Bearer is refused (unsupported_token_type), the ID Token is validated (signature with the provider's
// keys, iss, aud, exp, iat, nonce when given), UserInfo is called (its sub must match), and one JSON object
// is printed — never the tokens themselves:
//   {"id_token_claims": {...}, "userinfo": {...}, "access_token_expires_at": <unix seconds or null>,
//    "has_refresh_token": true|false}
// --save-tokens writes the tokens to FILE (mode 0600, atomically) for sample-call-api.
// Exit 0 on success, 1 with the typed error on stderr (e.g. "oauth_error: ... invalid_grant"), 2 on usage errors.
import Foundation
import JOSE
import OIDC
import OIDCNetworking
import OIDCSession
import OIDCTLSTransport

func usage(_ message: String) -> Never {
    FileHandle.standardError.write(Data("sample-exchange-code: \(message)\nusage: sample-exchange-code --issuer URL --client-id ID (--client-secret SECRET [--client-auth basic|post] | --client-auth tls_client_auth --client-cert FILE --client-key FILE [--ca-file FILE]) --redirect-uri URI --code CODE --code-verifier VERIFIER [--nonce NONCE] [--save-tokens FILE]\n".utf8))
    exit(2)
}

var values: [String: String] = [:]
var arguments = CommandLine.arguments.dropFirst()
let known: Set<String> = ["--issuer", "--client-id", "--client-secret", "--client-auth", "--redirect-uri", "--code", "--code-verifier",
                          "--nonce", "--save-tokens", "--client-cert", "--client-key", "--ca-file"]
while let flag = arguments.popFirst() {
    guard known.contains(flag) else { usage("unknown argument \(flag)") }
    guard let value = arguments.popFirst() else { usage("\(flag) needs a value") }
    values[flag] = value
}
let mutualTLS = values["--client-auth"] == "tls_client_auth"
for required in ["--issuer", "--client-id", "--redirect-uri", "--code", "--code-verifier"] + (mutualTLS ? ["--client-cert", "--client-key"] : ["--client-secret"])
    where values[required] == nil {
    usage("\(required) is required")
}
if mutualTLS, values["--client-secret"] != nil { usage("tls_client_auth takes no --client-secret: the client certificate authenticates") }
if !mutualTLS, values["--client-cert"] != nil || values["--client-key"] != nil { usage("--client-cert and --client-key go with --client-auth tls_client_auth") }
let issuer = values["--issuer"]!, clientID = values["--client-id"]!
guard let redirectURI = URL(string: values["--redirect-uri"]!) else { usage("--redirect-uri is not a URL") }
let authentication: ClientAuthentication
switch values["--client-auth"] ?? "basic" {
case "basic": authentication = .clientSecretBasic(clientID: clientID, secret: values["--client-secret"]!)
case "post": authentication = .clientSecretPost(clientID: clientID, secret: values["--client-secret"]!)
case "tls_client_auth": authentication = .tlsClientAuth(clientID: clientID)
default: usage("--client-auth takes basic, post or tls_client_auth")
}
// tls_client_auth or a --ca-file: the libssl transport (URLSession on Linux cannot present a client certificate).
let transport: any HTTPTransport
if mutualTLS || values["--ca-file"] != nil {
    do {
        transport = try LibSSLTransport(
            clientIdentity: mutualTLS ? LibSSLTransport.ClientIdentity(certificateFile: values["--client-cert"]!, privateKeyFile: values["--client-key"]!) : nil,
            serverTrust: values["--ca-file"].map { .caFile($0) } ?? .system)
    } catch {
        FileHandle.standardError.write(Data("sample-exchange-code: \(error)\n".utf8))
        exit(2)
    }
} else {
    transport = URLSessionTransport()
}

do {
    let client = try await OIDCClient.discover(issuer: issuer, authentication: authentication, transport: transport)
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
