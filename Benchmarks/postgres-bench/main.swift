// postgres-bench: what the PostgreSQL token store costs a back end (a benchmark, not a test).
//
//   swift run -c release postgres-bench --database URL [--requests N]
//
// 1. Per-request overhead without refresh: AuthenticatedSession over an in-process transport that
//    answers 200 at once, resumed from InMemoryTokenStore vs from PostgresTokenStore; rounds
//    alternate, medians reported, with the statements the PostgreSQL store sent during those
//    rounds (target: 0, the tokens are cached in the session).
// 2. A coordinated refresh across 4 processes: 4 children of this program start together and each
//    runs coordinatedRefresh on the same stale tokens (the refresh step answers at once, so this
//    is the coordination cost, not the provider's); reported: median over rounds of the time until
//    the last of the 4 holds the new tokens, and the refresh steps run per round (target: 1).
// Output lines:
//   postgres-bench per_request memory_us=… postgres_us=… overhead_us=… db_statements=…
//   postgres-bench coordinated_refresh processes=4 rounds=… median_ms=… max_ms=… refresh_steps_per_round=…
import Foundation
import OIDC
import OIDCPostgres
import OIDCSession

struct InstantAPI: HTTPTransport {
    func send(_ request: TransportRequest) async throws -> TransportResponse { TransportResponse(status: 200, headers: [:], body: []) }
}

struct NeverRefresh: TokenRefresher {
    func refreshTokens(using refreshToken: String) async throws -> TokenResponse {
        throw OIDCError(.refreshFailed, "no refresh in this benchmark")
    }
}

func option(_ name: String) -> String? {
    let arguments = CommandLine.arguments
    guard let index = arguments.firstIndex(of: name), index + 1 < arguments.count else { return nil }
    return arguments[index + 1]
}

guard let url = option("--database") else {
    FileHandle.standardError.write(Data("usage: postgres-bench --database URL [--requests N]\n".utf8))
    exit(2)
}
let stale = TokenResponse(accessToken: "AT-stale", refreshToken: "RT-stale")

// Child mode: wait for the common start time, run one coordinated refresh, print "elapsed_us refreshed(0|1)".
if let key = option("--child"), let startText = option("--start-at"), let startAt = UInt64(startText) {
    let database = try PostgresDatabase(url: url, maximumConnections: 1)
    let store = try PostgresTokenStore(database: database, key: key, table: TableName("bench_tokens"))
    _ = try await database.execute("SELECT 1")  // connected before the start
    var now = timespec()
    clock_gettime(CLOCK_REALTIME, &now)
    let nowNs = UInt64(now.tv_sec) * 1_000_000_000 + UInt64(now.tv_nsec)
    if startAt > nowNs { try await Task.sleep(nanoseconds: startAt - nowNs) }
    let begin = DispatchTime.now().uptimeNanoseconds
    let result = try await store.coordinatedRefresh(replacing: stale) { _ in
        .refreshed(TokenResponse(accessToken: "AT-new-\(getpid())", refreshToken: "RT-new-\(getpid())"))
    }
    let elapsed = (DispatchTime.now().uptimeNanoseconds - begin) / 1000
    if case .refreshed = result { print("\(elapsed) 1") } else { print("\(elapsed) 0") }
    database.close()
    exit(0)
}

let requests = Int(option("--requests") ?? "") ?? 20_000
let database = try PostgresDatabase(url: url)
let table = try TableName("bench_tokens")
let postgresStore = try PostgresTokenStore(database: database, key: "bench-user", table: table)
try await postgresStore.createTable()
try await postgresStore.save(TokenResponse(accessToken: "AT", refreshToken: "RT"))
let origin = URL(string: "https://api.example.com/resource")!
let memorySession = try await AuthenticatedSession.resume(
    refresher: NeverRefresh(),
    configuration: .init(
        allowedOrigins: [origin], transport: InstantAPI(),
        store: InMemoryTokenStore(TokenResponse(accessToken: "AT", refreshToken: "RT")),
        proactiveRefreshMargin: nil))
let postgresSession = try await AuthenticatedSession.resume(
    refresher: NeverRefresh(),
    configuration: .init(allowedOrigins: [origin], transport: InstantAPI(), store: postgresStore, proactiveRefreshMargin: nil))

func perRequest(_ session: AuthenticatedSession) async throws -> Double {
    let start = DispatchTime.now().uptimeNanoseconds
    for _ in 0..<requests { _ = try await session.send(TransportRequest(url: origin)) }
    return Double(DispatchTime.now().uptimeNanoseconds - start) / 1000 / Double(requests)
}
func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }

_ = try await perRequest(memorySession)
_ = try await perRequest(postgresSession)
var memory: [Double] = [], postgres: [Double] = []
let statementsBefore = database.statementsSent
for _ in 0..<7 {
    memory.append(try await perRequest(memorySession))
    postgres.append(try await perRequest(postgresSession))
}
let statements = database.statementsSent - statementsBefore
let m = median(memory), p = median(postgres)
print(String(format: "postgres-bench per_request memory_us=%.2f postgres_us=%.2f overhead_us=%.2f db_statements=%d", m, p, p - m, statements))

// Coordinated refresh across 4 processes.
let rounds = 15
var totals: [Double] = [], stepsPerRound: [Int] = []
for round in 0..<rounds {
    let key = "bench-coordinated-\(round)"
    let store = try PostgresTokenStore(database: database, key: key, table: table)
    try await store.save(stale)
    var now = timespec()
    clock_gettime(CLOCK_REALTIME, &now)
    let startAt = UInt64(now.tv_sec) * 1_000_000_000 + UInt64(now.tv_nsec) + 400_000_000
    var children: [(Process, Pipe)] = []
    for _ in 0..<4 {
        let child = Process()
        child.executableURL = URL(
            fileURLWithPath: CommandLine.arguments[0].hasPrefix("/")
                ? CommandLine.arguments[0]
                : FileManager.default.currentDirectoryPath + "/" + CommandLine.arguments[0])
        child.arguments = ["--database", url, "--child", key, "--start-at", String(startAt)]
        let pipe = Pipe()
        child.standardOutput = pipe
        try child.run()
        children.append((child, pipe))
    }
    var slowest = 0.0, steps = 0
    for (child, pipe) in children {
        let text = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        child.waitUntilExit()
        let fields = text.split(separator: " ").map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }
        guard fields.count == 2, let microseconds = Double(fields[0]), let refreshed = Int(fields[1]) else {
            print("postgres-bench: a child failed: \(text)")
            exit(1)
        }
        slowest = max(slowest, microseconds / 1000)
        steps += refreshed
    }
    totals.append(slowest)
    stepsPerRound.append(steps)
    try await store.clear()
}
print(
    String(
        format: "postgres-bench coordinated_refresh processes=4 rounds=%d median_ms=%.2f max_ms=%.2f refresh_steps_per_round=%@",
        rounds, median(totals), totals.max() ?? 0, Set(stepsPerRound).sorted().map(String.init).joined(separator: ",")))
_ = try await database.execute("DROP TABLE IF EXISTS \"bench_tokens\"")
database.close()
