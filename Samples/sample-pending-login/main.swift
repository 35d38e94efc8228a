// sample-pending-login: a login that starts on one replica and finishes on another, with the
// pending login (state, nonce, PKCE verifier) kept in PostgreSQL and consumed exactly once.
//
//   swift run sample-pending-login start --database URL --issuer URL --client-id ID --redirect-uri URI [--scope "openid profile"]
//   swift run sample-pending-login finish --database URL --issuer URL --client-id ID --client-secret SECRET --callback URL
//
// start: saves the pending login under its state (10 minutes) and prints the authorization URL.
// finish: takes the pending login named by the callback's state (at most once, on any replica),
// checks the callback against it, exchanges the code (PKCE), validates the ID Token (nonce
// included) and prints {"sub": ..., "has_refresh_token": true|false}.
// A replayed callback fails with "pending_login_not_found" on standard error, exit 1; 2 on usage errors.
// TOKEN_ENCRYPTION_KEY (base64 of 32 bytes) seals the pending logins at rest (AES-256-GCM, key id "k1").
import Foundation
import JOSE
import OIDC
import OIDCNetworking
import OIDCPostgres
import OIDCSession

func usage(_ message: String) -> Never {
    FileHandle.standardError.write(Data("""
        sample-pending-login: \(message)
        usage: sample-pending-login start --database URL --issuer URL --client-id ID --redirect-uri URI [--scope SCOPES]
               sample-pending-login finish --database URL --issuer URL --client-id ID --client-secret SECRET --callback URL

        """.utf8))
    exit(2)
}

var arguments = CommandLine.arguments.dropFirst()
guard let command = arguments.popFirst(), command == "start" || command == "finish" else { usage("start or finish is required") }
var values: [String: String] = [:]
let known: Set<String> = ["--database", "--issuer", "--client-id", "--client-secret", "--redirect-uri", "--scope", "--callback"]
while let flag = arguments.popFirst() {
    guard known.contains(flag) else { usage("unknown argument \(flag)") }
    guard let value = arguments.popFirst() else { usage("\(flag) needs a value") }
    values[flag] = value
}
let required = command == "start" ? ["--database", "--issuer", "--client-id", "--redirect-uri"]
    : ["--database", "--issuer", "--client-id", "--client-secret", "--callback"]
for name in required where values[name] == nil { usage("\(name) is required") }

do {
    var encryption: TokenEncryption?
    if let text = ProcessInfo.processInfo.environment["TOKEN_ENCRYPTION_KEY"] {
        guard let key = Data(base64Encoded: text) else { usage("TOKEN_ENCRYPTION_KEY is not base64") }
        encryption = try TokenEncryption(current: TokenEncryptionKey(id: "k1", bytes: Array(key)))
    }
    let database = try PostgresDatabase(url: values["--database"]!, maximumConnections: 1)
    defer { database.close() }
    let logins = try PostgresPendingLoginStore(database: database, encryption: encryption)
    try await logins.createTable()
    let transport = URLSessionTransport()
    let discovery = Discovery(transport: transport)
    let metadata = try await discovery.metadata(for: values["--issuer"]!)

    if command == "start" {
        guard let redirectURI = URL(string: values["--redirect-uri"]!) else { usage("--redirect-uri is not a URL") }
        guard let endpoint = metadata.authorizationEndpoint else {
            throw OIDCError(.discoveryMissingField, "the provider has no authorization_endpoint")
        }
        var request = try OAuthRequest(clientID: values["--client-id"]!, redirectURI: redirectURI)
        request.scopes = (values["--scope"] ?? "openid").split(separator: " ").map(String.init)
        let pending = try request.pendingAuthorization(at: endpoint, issuer: metadata.issuer)
        try await logins.save(pending, state: pending.state.value, expiresIn: 600)
        print(pending.authorizationURL.absoluteString)
    } else {
        guard let callback = URL(string: values["--callback"]!),
              let state = URLComponents(url: callback, resolvingAgainstBaseURL: false)?.queryItems?.first(where: { $0.name == "state" })?.value
        else { throw OIDCError(.pendingLoginNotFound, "the callback carries no state") }
        let pending = try await logins.consume(state: state, as: PendingAuthorization.self)
        let response = try pending.parseRedirect(callback)
        guard let code = response.code else { throw OIDCError(.invalidTokenResponse, "the callback carries no code") }
        guard let tokenEndpoint = metadata.tokenEndpoint else {
            throw OIDCError(.discoveryMissingField, "the provider has no token_endpoint")
        }
        let client = TokenClient(tokenEndpoint: tokenEndpoint,
                                 authentication: .clientSecretBasic(clientID: values["--client-id"]!, secret: values["--client-secret"]!),
                                 transport: transport)
        let tokens = try await client.exchangeCode(code, redirectURI: pending.request.redirectURI, codeVerifier: pending.codeVerifier?.value)
        guard let idToken = tokens.idToken else { throw OIDCError(.invalidTokenResponse, "the token response has no id_token") }
        let validator = try await IDTokenValidator.discover(issuer: metadata.issuer, clientID: values["--client-id"]!,
                                                            clientSecret: values["--client-secret"], discovery: discovery,
                                                            keyCaches: JWKSetCacheRegistry(transport: transport))
        let validated = try await validator.validate(idToken, expecting: IDTokenExpectations(nonce: pending.nonce?.value))
        var output = JSONObject()
        output["sub"] = validated.subject.map { .string($0) } ?? .null
        output["has_refresh_token"] = .bool(tokens.refreshToken != nil)
        print(JSONValue.object(output).jsonString())
    }
} catch {
    FileHandle.standardError.write(Data("sample-pending-login: \(error)\n".utf8))
    exit(1)
}
