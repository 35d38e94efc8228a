// sample-exchange-code: what a partner back end does with the code its app sends.
//
//   swift run sample-exchange-code --issuer URL --client-id ID --client-secret SECRET [--client-auth basic|post]
//       --redirect-uri URI --code CODE --code-verifier VERIFIER [--nonce NONCE] [--save-tokens FILE]
//   swift run sample-exchange-code --issuer URL --client-id ID --client-auth tls_client_auth --client-cert FILE
//       --client-key FILE [--ca-file FILE] --redirect-uri URI --code CODE --code-verifier VERIFIER ...
//   either form takes [--profile entra|google|apple|keycloak|okta|auth0] [--tenant ID]... [--hosted-domain D]...
//   and, for Apple, [--team-id T --key-id K --client-key FILE] instead of --client-secret;
//   and [--decryption-key PATH]... [--id-token-encrypted-response-alg ALG] [--userinfo-signed].
//
// With tls_client_auth (RFC 8705 §2.1) there is no --client-secret: the client certificate (PEM, with its
// unencrypted PEM key) is presented in the TLS handshake by LibSSLTransport, the body carries client_id
// only, and the provider's mtls_endpoint_aliases (token_endpoint, userinfo_endpoint, ...) are called when
// it publishes them; a certificate-bound access token then goes to UserInfo over the same connection setup.
// --ca-file: the only CA trusted for the provider's TLS (else the system's trust store).
// --profile accepts that provider's documented departures only (ProviderProfile); --tenant (Entra) and
// --hosted-domain (Google) are its allow-lists. Apple's client_secret is the ES256 JWT made from the team id,
// key id and the P-256 key in FILE (PEM), sent by client_secret_post.
//
// One OIDCClient (discovery once): the code is redeemed with the PKCE verifier, a token_type other than
// Bearer is refused (unsupported_token_type), the ID Token is validated (signature with the provider's
// keys, iss, aud, exp, iat, nonce when given), UserInfo is called (its sub must match), and one JSON object
// is printed — never the tokens themselves:
//   {"id_token_claims": {...}, "userinfo": {...}, "access_token_expires_at": <unix seconds or null>,
//    "has_refresh_token": true|false}, plus "authorization_details": [...] when the provider granted RFC 9396 details
// --save-tokens writes the tokens to FILE (mode 0600, atomically) for sample-call-api.
// Exit 0 on success, 1 with the typed error on stderr (e.g. "oauth_error: ... invalid_grant"), 2 on usage errors.
import Foundation
import JOSE
import OIDC
import OIDCSession
import OIDCTLSTransport
import SampleSupport

func usage(_ message: String) -> Never {
    FileHandle.standardError.write(
        Data(
            "sample-exchange-code: \(message)\nusage: sample-exchange-code --issuer URL --client-id ID (--client-secret SECRET [--client-auth basic|post] | --client-auth tls_client_auth --client-cert FILE --client-key FILE [--ca-file FILE] | --team-id T --key-id K --client-key FILE) --redirect-uri URI --code CODE --code-verifier VERIFIER [--nonce NONCE] [--save-tokens FILE] [--profile entra|google|apple|keycloak|okta|auth0] [--tenant ID]... [--hosted-domain D]... [--decryption-key PATH]... [--id-token-encrypted-response-alg ALG] [--userinfo-signed]\n"
                .utf8))
    exit(2)
}

var values: [String: String] = [:]
var tenants: Set<String> = [], hostedDomains: Set<String> = []
var arguments = CommandLine.arguments.dropFirst()
let known: Set<String> = [
    "--issuer", "--client-id", "--client-secret", "--client-auth", "--redirect-uri", "--code", "--code-verifier",
    "--nonce", "--save-tokens", "--client-cert", "--client-key", "--ca-file",
    "--profile", "--tenant", "--hosted-domain", "--team-id", "--key-id",
    "--decryption-key", "--id-token-encrypted-response-alg",
]
var decryptionKeyPaths: [String] = []
var userInfoSigned = false
while let flag = arguments.popFirst() {
    if flag == "--userinfo-signed" { userInfoSigned = true; continue }
    guard known.contains(flag) else { usage("unknown argument \(flag)") }
    guard let value = arguments.popFirst() else { usage("\(flag) needs a value") }
    switch flag {
    case "--tenant": tenants.insert(value)
    case "--hosted-domain": hostedDomains.insert(value)
    case "--decryption-key": decryptionKeyPaths.append(value)
    default: values[flag] = value
    }
}
let mutualTLS = values["--client-auth"] == "tls_client_auth"
let apple = mutualTLS ? [] : ["--team-id", "--key-id", "--client-key"].filter { values[$0] != nil }
guard apple.isEmpty || apple.count == 3 else { usage("--team-id, --key-id and --client-key go together") }
if mutualTLS {
    for required in ["--client-cert", "--client-key"] where values[required] == nil { usage("\(required) is required with tls_client_auth") }
    if values["--client-secret"] != nil { usage("tls_client_auth takes no --client-secret: the client certificate authenticates") }
    if values["--team-id"] != nil || values["--key-id"] != nil { usage("--team-id and --key-id (Apple) do not go with tls_client_auth") }
} else {
    if values["--client-cert"] != nil { usage("--client-cert goes with --client-auth tls_client_auth") }
    guard apple.isEmpty != (values["--client-secret"] == nil) else { usage("give --client-secret, or --team-id, --key-id and --client-key (Apple)") }
}
for required in ["--issuer", "--client-id", "--redirect-uri", "--code", "--code-verifier"] where values[required] == nil {
    usage("\(required) is required")
}
let profile = values["--profile"].map { name -> ProviderProfile in
    // No --tenant / --hosted-domain: any, said by name; a list given is never empty.
    let tenantRule: EntraTenants, domainRule: GoogleHostedDomains
    do {
        tenantRule = tenants.isEmpty ? .anyTenant : try .allowList(tenants)
        domainRule = hostedDomains.isEmpty ? .anyHostedDomain : try .allowList(hostedDomains)
    } catch {
        usage(String(describing: error))
    }
    guard let profile = ProviderProfile(name: name, tenants: tenantRule, hostedDomains: domainRule) else {
        usage("--profile takes entra, google, apple, keycloak, okta or auth0")
    }
    return profile
}
if !tenants.isEmpty, profile?.name != "entra" { usage("--tenant goes with --profile entra") }
if !hostedDomains.isEmpty, profile?.name != "google" { usage("--hosted-domain goes with --profile google") }
if !apple.isEmpty, profile != .apple { usage("--team-id, --key-id and --client-key go with --profile apple") }
let issuer = values["--issuer"]!, clientID = values["--client-id"]!
guard let redirectURI = URL(string: values["--redirect-uri"]!) else { usage("--redirect-uri is not a URL") }
var authentication: ClientAuthentication
if mutualTLS {
    authentication = .tlsClientAuth(clientID: clientID)
} else if let secret = values["--client-secret"] {
    switch values["--client-auth"] ?? "basic" {
    case "basic": authentication = .clientSecretBasic(clientID: clientID, secret: secret)
    case "post": authentication = .clientSecretPost(clientID: clientID, secret: secret)
    default: usage("--client-auth takes basic, post or tls_client_auth")
    }
} else {
    guard values["--client-auth"] == nil else { usage("--client-auth goes with --client-secret (Apple's is client_secret_post)") }
    authentication = .none(clientID: clientID)  // replaced below, once the key file is read
}

// Apple's team key (read here; the mTLS key file is read by LibSSLTransport).
let appleKey =
    apple.isEmpty
    ? nil
    : values["--client-key"].map { path -> String in
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { usage("cannot read --client-key \(path)") }
        return text
    }

// tls_client_auth or a --ca-file: the libssl transport (URLSession on Linux cannot present a client certificate),
// by SampleTransport's rule.
let clientIdentity =
    mutualTLS
    ? values["--client-cert"].flatMap { certificate in
        values["--client-key"].map { LibSSLTransport.ClientIdentity(certificateFile: certificate, privateKeyFile: $0) }
    } : nil
let transport: any HTTPTransport
do {
    transport = try SampleTransport.make(caFile: values["--ca-file"], clientIdentity: clientIdentity)
} catch {
    FileHandle.standardError.write(Data("sample-exchange-code: \(error)\n".utf8))
    exit(2)
}

do {
    if let appleKey, let team = values["--team-id"], let keyID = values["--key-id"] {
        let key = try JWK(pem: appleKey)
        authentication = .appleClientSecret(try AppleClientSecret(teamID: team, keyID: keyID, clientID: clientID, key: key, audience: issuer))
    }
    var configuration = OIDCClient.Configuration()
    configuration.profile = profile
    if let name = values["--id-token-encrypted-response-alg"] {
        guard let algorithm = JWEKeyAlgorithm(rawValue: name) else { usage("--id-token-encrypted-response-alg: \(name) is not a supported JWE algorithm") }
        configuration.idTokenEncryption = ResponseEncryption(algorithm: algorithm, encryption: nil)
    }
    if userInfoSigned { configuration.userInfoFormat = .signed }
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
    let client = try await OIDCClient.discover(
        issuer: issuer, authentication: authentication, transport: transport,
        configuration: configuration)
    // The login the app started, rebuilt from what it handed over: the verifier and the nonce it sent.
    let pending = try client.pendingLogin(startedByApp: redirectURI, codeVerifier: values["--code-verifier"]!, nonce: values["--nonce"])
    let login = try await client.finishLogin(pending, callback: .codeCheckedByApp(values["--code"]!))
    let userInfo = client.metadata.userinfoEndpoint == nil ? JSONObject() : try await client.userInfo(login.tokens)
    if let path = values["--save-tokens"] { try await FileTokenStore(path: path).save(login.tokens) }
    var output = JSONObject()
    output["id_token_claims"] = .object(login.idToken.claims.object)
    output["userinfo"] = .object(userInfo)
    output["access_token_expires_at"] =
        login.tokens.expiresAt.flatMap { Int64(exactly: $0.timeIntervalSince1970.rounded(.towardZero)) }.map(JSONValue.integer) ?? .null
    output["has_refresh_token"] = .bool(login.tokens.refreshToken != nil)
    if let details = try login.tokens.authorizationDetails { output["authorization_details"] = AuthorizationDetail.jsonValue(details) }
    print(JSONValue.object(output).jsonString())
} catch {
    FileHandle.standardError.write(Data("sample-exchange-code: \(error)\n".utf8))
    exit(1)
}
