import Foundation
import OIDC
import OIDCRedis
import Testing

/// The Redis server started by `Tests/providers.sh` (Tests/Redis/start.sh): its tests skip when `REDIS_URL` is
/// unset, except under `CI=true`, where they run and fail without it.
enum TestRedis {
    static let url = ProcessInfo.processInfo.environment["REDIS_URL"]
    static var enabled: Bool { url != nil || ProcessInfo.processInfo.environment["CI"] == "true" }

    /// A new pool on the test server (each pool stands for one replica).
    static func open(connections: Int = 4, commandTimeout: Double = 5, name: String? = nil) throws -> RedisDatabase {
        try RedisDatabase(
            url: try #require(url, "REDIS_URL is required under CI"), maximumConnections: connections, commandTimeout: commandTimeout,
            clientName: name)
    }

    /// Kills every connection named `name` (the tests run in parallel: `CLIENT KILL TYPE normal` would cut the others').
    @discardableResult
    static func killClients(named name: String, using admin: RedisDatabase) async throws -> Int {
        let list = try await run(admin, "CLIENT", "LIST").text("client list") ?? ""
        var killed = 0
        for line in list.split(separator: "\n") where line.contains(" name=\(name) ") {
            guard let id = line.split(separator: " ").first(where: { $0.hasPrefix("id=") })?.dropFirst(3) else { continue }
            if try await run(admin, "CLIENT", "KILL", "ID", String(id)).integer("killed") == 1 { killed += 1 }
        }
        return killed
    }

    /// A namespace no other test uses.
    static func uniqueNamespace(_ prefix: String) -> String { "test:\(prefix):\(UInt64.random(in: 0...UInt64.max))" }

    static func key(_ id: String, _ byte: UInt8) throws -> TokenEncryptionKey {
        try TokenEncryptionKey(id: id, bytes: [UInt8](repeating: byte, count: 32))
    }

    /// A command's reply, as bytes of text (tests only).
    static func run(_ database: RedisDatabase, _ words: String...) async throws -> RedisValue {
        try await database.command(words.map { Array($0.utf8) })
    }
}

/// Expects an `OIDCError` with `code`.
func expectError(_ code: OIDCError.Code, sourceLocation: SourceLocation = #_sourceLocation, _ body: () async throws -> Void) async {
    do {
        try await body()
        Issue.record("expected \(code), nothing thrown", sourceLocation: sourceLocation)
    } catch let error as OIDCError {
        #expect(error.code == code, "\(error)", sourceLocation: sourceLocation)
    } catch {
        Issue.record("expected OIDCError \(code), got \(error)", sourceLocation: sourceLocation)
    }
}

/// A one-shot signal between a test and a refresh step.
final class Signal: Sendable {
    private let stream: AsyncStream<Void>
    private let continuation: AsyncStream<Void>.Continuation
    init() { (stream, continuation) = AsyncStream.makeStream(of: Void.self) }
    func fire() { continuation.yield(); continuation.finish() }
    func wait() async { for await _ in stream { break } }
}

/// Counts refresh steps.
final class StepCounter: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0
    func next() -> Int {
        lock.withLock {
            count += 1; return count
        }
    }
    var value: Int { lock.withLock { count } }
}

/// Polls `condition` (an event the test waits for) until it holds or 60 s passed.
func eventually(_ what: String, _ condition: () async throws -> Bool) async throws {
    let deadline = Date().addingTimeInterval(60)
    while try await !condition() {
        guard Date() < deadline else { Issue.record("timed out waiting for: \(what)"); throw CancellationError() }
        try await Task.sleep(nanoseconds: 10_000_000)
    }
}
