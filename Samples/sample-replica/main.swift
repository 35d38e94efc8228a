// sample-replica: one replica of a back end whose user tokens live in PostgreSQL or in Redis (Valkey), so
// that many replicas share one login and refresh it once between them.
//
//   swift run sample-replica --database URL --issuer URL --client-id ID --client-secret SECRET --user KEY
//       [--seed-tokens FILE] [--per-process-store] --requests N URL
//
// --database takes a libpq connection URI (postgresql://user@127.0.0.1:PORT/db; TLS options such as
// ?sslmode=verify-full&sslrootcert=... pass through), or a redis:// or rediss:// URL
// (redis://[user:password@]127.0.0.1:PORT/0): the URL's scheme chooses the store (OIDCPostgres or OIDCRedis),
// everything else is the same. --seed-tokens first stores, under KEY, the tokens
// that `sample-exchange-code --save-tokens` wrote to FILE. Then N concurrent GETs go to URL through an
// AuthenticatedSession backed by the PostgreSQL store (the URL's origin is the only allowed origin);
// on a 401 the session refreshes through the store's refresh lease: one refresh among all replicas, no
// database transaction held across the provider call.
// stdout, one line:  status_2xx=N refreshes=N logged_out=false|true
// (refreshes: refresh requests this process sent to the provider). Exit 0 when every request got a
// 2xx, 1 otherwise, 2 on usage or setup errors. Every failed request's cause goes to stderr
// ("sample-replica: N of M requests failed: CODE: reason"), and so do the session's logouts and store failures.
//
// --per-process-store (the contrast, not for production): tokens are read from PostgreSQL once and then
// kept in this process only, as a per-process store would: concurrent replicas each refresh.
// Environment: TOKEN_ENCRYPTION_KEY (base64 of 32 bytes) seals the tokens at rest with AES-256-GCM
// (key id "k1"); SAMPLE_REPLICA_REFRESH_DELAY_MS waits that long at the start of the refresh step (this
// replica holds the refresh lease) before the provider is called, after printing "refresh-lock-held pid=PID"
// on stderr (for the crash and connection-loss tests).
import Foundation
import OIDC
import OIDCNetworking
import OIDCPostgres
import OIDCRedis
import OIDCSession

func usage(_ message: String) -> Never {
    FileHandle.standardError.write(
        Data(
            """
            sample-replica: \(message)
            usage: sample-replica --database URL --issuer URL --client-id ID --client-secret SECRET --user KEY [--seed-tokens FILE] [--per-process-store] --requests N URL

            """.utf8))
    exit(2)
}

func fail(_ error: any Error, status: Int32) -> Never {
    FileHandle.standardError.write(Data("sample-replica: \(error)\n".utf8))
    exit(status)
}

var values: [String: String] = [:]
var target: String?
var perProcess = false
var arguments = CommandLine.arguments.dropFirst()
let known: Set<String> = ["--database", "--issuer", "--client-id", "--client-secret", "--user", "--seed-tokens", "--requests"]
while let argument = arguments.popFirst() {
    if known.contains(argument) {
        guard let value = arguments.popFirst() else { usage("\(argument) needs a value") }
        values[argument] = value
    } else if argument == "--per-process-store" {
        perProcess = true
    } else if argument.hasPrefix("--") || target != nil {
        usage("unexpected argument \(argument)")
    } else {
        target = argument
    }
}
for required in ["--database", "--issuer", "--client-id", "--client-secret", "--user", "--requests"] where values[required] == nil {
    usage("\(required) is required")
}
guard let target, let url = URL(string: target), url.scheme != nil, url.host != nil else { usage("the URL to call is required") }
guard let requests = Int(values["--requests"] ?? ""), (0...100_000).contains(requests) else { usage("--requests takes 0...100000") }
let delayMilliseconds = ProcessInfo.processInfo.environment["SAMPLE_REPLICA_REFRESH_DELAY_MS"].flatMap { UInt64($0) } ?? 0
// Each request's deadline, which grows with the requests this process queues at once (they share a few
// connections, so under load the last ones wait their turn): no short fixed timeout fails a request that
// is merely queued. A request waiting for another replica's refresh waits up to the same deadline.
let requestDeadline = 120 + Double(requests) / 10

/// The provider's refresh grant, counted (and optionally delayed at the start of the refresh step).
final class CountingRefresher: TokenRefresher, @unchecked Sendable {
    private let client: TokenClient
    private let lock = NSLock()
    private var sent = 0
    init(_ client: TokenClient) { self.client = client }
    var count: Int { lock.withLock { sent } }

    func refreshTokens(using refreshToken: String) async throws -> TokenResponse {
        if delayMilliseconds > 0 {
            FileHandle.standardError.write(Data("refresh-lock-held pid=\(getpid())\n".utf8))
            try await Task.sleep(nanoseconds: delayMilliseconds * 1_000_000)
        }
        lock.withLock { sent += 1 }
        return try await client.refreshTokens(using: refreshToken)
    }
}

/// The shared store's connections, closed at the end.
enum Backend {
    case postgres(PostgresDatabase)
    case redis(RedisDatabase)

    func close() {
        switch self {
        case .postgres(let database): database.close()
        case .redis(let database): database.close()
        }
    }
}

let backend: Backend
let sharedStore: any CoordinatedTokenStore
let refresher: CountingRefresher
let session: AuthenticatedSession
let transport = URLSessionTransport()
do {
    var encryption: TokenEncryption?
    if let text = ProcessInfo.processInfo.environment["TOKEN_ENCRYPTION_KEY"] {
        guard let key = Data(base64Encoded: text) else { usage("TOKEN_ENCRYPTION_KEY is not base64") }
        encryption = try TokenEncryption(current: TokenEncryptionKey(id: "k1", bytes: Array(key)))
    }
    let databaseURL = values["--database"]!
    let scheme = databaseURL.prefix(while: { $0 != ":" }).lowercased()
    if scheme == "redis" || scheme == "rediss" {
        // Named per process, so the replica test can see every process connected before it kills the connections.
        let database = try RedisDatabase(
            url: databaseURL, maximumConnections: 2, commandTimeout: 10, clientName: "sample-replica-\(getpid())")
        backend = .redis(database)
        sharedStore = try RedisTokenStore(database: database, key: values["--user"]!, encryption: encryption, waitTimeout: requestDeadline)
    } else {
        let database = try PostgresDatabase(url: databaseURL, maximumConnections: 2)
        backend = .postgres(database)
        let store = try PostgresTokenStore(database: database, key: values["--user"]!, encryption: encryption, waitTimeout: requestDeadline)
        try await store.createTable()
        sharedStore = store
    }
    if let file = values["--seed-tokens"] {
        guard let tokens = try await FileTokenStore(path: file).load() else {
            throw OIDCError(.notAuthenticated, "\(file) holds no tokens: run sample-exchange-code --save-tokens first")
        }
        try await sharedStore.save(tokens)
    }
    let discovery = Discovery(transport: transport)
    let metadata = try await discovery.metadata(for: values["--issuer"]!)
    guard let tokenEndpoint = metadata.tokenEndpoint else { throw OIDCError(.discoveryMissingField, "the provider has no token_endpoint") }
    // A provider call given up on may still have rotated the refresh token: give it the request's deadline.
    let tokenClient = try TokenClient(
        tokenEndpoint: tokenEndpoint,
        authentication: .clientSecretBasic(clientID: values["--client-id"]!, secret: values["--client-secret"]!),
        transport: transport, timeout: requestDeadline)
    refresher = CountingRefresher(tokenClient)
    // An ID Token from a refresh is validated and checked against the stored one before it is kept.
    let validator = try await IDTokenValidator.discover(
        issuer: metadata.issuer, clientID: values["--client-id"]!,
        clientSecret: values["--client-secret"], discovery: discovery,
        keyCaches: JWKSetCacheRegistry(transport: transport))
    let store: any TokenStore = perProcess ? InMemoryTokenStore(try await sharedStore.load()) : sharedStore
    session = try await AuthenticatedSession.resume(
        refresher: refresher,
        configuration: .init(
            allowedOrigins: [url], transport: transport, store: store,
            refreshedIDTokens: .validate(with: validator), proactiveRefreshMargin: nil))
    guard await session.currentTokens != nil || requests == 0 else {
        throw OIDCError(.notAuthenticated, "no tokens stored under this user: seed them with --seed-tokens")
    }
} catch {
    fail(error, status: 2)
}

// The session's logouts, failed refreshes and store failures (e.g. refresh_lease_lost), on stderr.
let eventLog = Task {
    for await event in session.events {
        switch event {
        case .refreshed: continue
        case .loggedOut(let error), .storeFailed(let error), .refreshFailed(let error):
            FileHandle.standardError.write(Data("sample-replica: session event: \(event): \(error)\n".utf8))
        }
    }
}

// Each request's outcome: nil for a 2xx, otherwise why it failed (the HTTP status, or the error's
// code and reason: OIDCError never carries a token). Failures are summarised on stderr, always.
let outcomes = await withTaskGroup(of: String?.self) { group in
    for _ in 0..<requests {
        group.addTask {
            do {
                let response = try await session.send(
                    TransportRequest(
                        method: "GET", url: url, headers: ["Accept": "application/json"],
                        timeout: requestDeadline))
                return (200..<300).contains(response.status) ? nil : "HTTP \(response.status)"
            } catch let error as OIDCError {
                return "\(error)" + (error.httpStatus.map { " (HTTP \($0))" } ?? "") + (error.oauthError.map { " [\($0)]" } ?? "")
            } catch {
                return "\(type(of: error)): \(error)"
            }
        }
    }
    var failures: [String: Int] = [:]
    for await outcome in group { failures[outcome ?? "", default: 0] += 1 }
    return failures
}
let successes = outcomes[""] ?? 0
for (reason, count) in outcomes.sorted(by: { $0.value > $1.value }) where !reason.isEmpty {
    FileHandle.standardError.write(Data("sample-replica: \(count) of \(requests) requests failed: \(reason)\n".utf8))
}
session.finishEvents()
await eventLog.value
let remaining = await session.currentTokens
let loggedOut = requests > 0 && remaining == nil
print("status_2xx=\(successes) refreshes=\(refresher.count) logged_out=\(loggedOut)")
backend.close()
exit(successes == requests ? 0 : 1)
