// sample-pending-login: a login that starts on one replica and finishes on another, with the
// pending login (state, nonce, PKCE verifier) kept in PostgreSQL and consumed exactly once.
//
//   swift run sample-pending-login start --database URL --issuer URL --client-id ID --redirect-uri URI [--scope "openid profile"]
//   swift run sample-pending-login finish --database URL --issuer URL --client-id ID --client-secret SECRET --callback URL
//
// start: saves the pending login under its state (10 minutes) and prints the authorization URL.
// finish: takes the pending login named by the callback's state (at most once, on any replica),
// finishes it through OIDCClient.finishLogin (callback, code exchange with PKCE, token type, ID Token
// with the nonce) and prints {"sub": ..., "has_refresh_token": true|false}.
// A replayed callback fails with "pending_login_not_found" on standard error, exit 1; 2 on usage errors.
// TOKEN_ENCRYPTION_KEY (base64 of 32 bytes) seals the pending logins at rest (AES-256-GCM, key id "k1").
import Foundation
import JOSE
import OIDC
import OIDCNetworking
import OIDCPostgres
import OIDCSession

func usage(_ message: String) -> Never {
    FileHandle.standardError.write(
        Data(
            """
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
let required =
    command == "start"
    ? ["--database", "--issuer", "--client-id", "--redirect-uri"]
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
    let issuer = values["--issuer"]!, clientID = values["--client-id"]!

    if command == "start" {
        guard let redirectURI = URL(string: values["--redirect-uri"]!) else { usage("--redirect-uri is not a URL") }
        // Starting a login needs no secret: the client id is enough.
        let client = try await OIDCClient.discover(issuer: issuer, authentication: .none(clientID: clientID), transport: transport)
        let pending = try await client.startLogin(
            LoginRequest(
                redirectURI: redirectURI,
                scopes: (values["--scope"] ?? "openid").split(separator: " ").map(String.init)))
        try await logins.save(pending, key: pending.state, expiresIn: 600)
        print(pending.url.absoluteString)
    } else {
        guard let callback = URL(string: values["--callback"]!),
            let state = URLComponents(url: callback, resolvingAgainstBaseURL: false)?.queryItems?.first(where: { $0.name == "state" })?.value
        else { throw OIDCError(.pendingLoginNotFound, "the callback carries no state") }
        let pending = try await logins.consume(key: state, as: PendingLogin.self)
        let client = try await OIDCClient.discover(
            issuer: issuer,
            authentication: .clientSecretBasic(clientID: clientID, secret: values["--client-secret"]!),
            transport: transport)
        let login = try await client.finishLogin(pending, callback: .url(callback))  // every check, one call
        let validated = login.idToken, tokens = login.tokens
        var output = JSONObject()
        output["sub"] = validated.subject.map { .string($0) } ?? .null
        output["has_refresh_token"] = .bool(tokens.refreshToken != nil)
        print(JSONValue.object(output).jsonString())
    }
} catch {
    FileHandle.standardError.write(Data("sample-pending-login: \(error)\n".utf8))
    exit(1)
}
