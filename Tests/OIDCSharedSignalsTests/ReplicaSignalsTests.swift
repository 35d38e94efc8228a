import Foundation
import JOSE
import OIDCPostgres
import OIDCSharedSignals
import Testing

/// Two replicas, each with its own receiver and database pool, sharing PostgreSQL: a SET ends a user's sessions in
/// the shared session index for every replica, and the same SET pushed to the other replica is acknowledged, not
/// acted on again (the replay cache is shared).
@Suite(
    "Shared Signals across replicas (PG_URL)",
    .enabled(if: Transmitter.available && (ProcessInfo.processInfo.environment["PG_URL"] != nil || ProcessInfo.processInfo.environment["CI"] == "true")))
struct ReplicaSignalsTests {
    @Test("session-revoked at replica A: alice's sessions are gone for both replicas, bob's stay; replica B does not act again")
    func everyReplica() async throws {
        let url = try #require(ProcessInfo.processInfo.environment["PG_URL"])
        let suffix = UInt64.random(in: 0...UInt64.max) % 1_000_000_000_000
        let databases = (try PostgresDatabase(url: url, maximumConnections: 2), try PostgresDatabase(url: url, maximumConnections: 2))
        defer {
            databases.0.close()
            databases.1.close()
        }
        let sessionTable = try TableName("ssf_sessions_\(suffix)"), replayTable = try TableName("ssf_replays_\(suffix)")
        let indexes = (
            try PostgresSessionIndex(database: databases.0, table: sessionTable), try PostgresSessionIndex(database: databases.1, table: sessionTable)
        )
        let replays = (try PostgresReplayCache(database: databases.0, table: replayTable), try PostgresReplayCache(database: databases.1, table: replayTable))
        try await indexes.0.createTable()
        try await replays.0.createTable()
        let op = "https://op.example"
        try await indexes.0.save(Array("alice-1".utf8), handle: "cookie-a1", issuer: op, subject: "alice", sessionID: "s1", expiresIn: 600)
        try await indexes.1.save(Array("alice-2".utf8), handle: "cookie-a2", issuer: op, subject: "alice", sessionID: "s2", expiresIn: 600)
        try await indexes.1.save(Array("bob-1".utf8), handle: "cookie-b1", issuer: op, subject: "bob", sessionID: "s3", expiresIn: 600)

        try await Transmitter.with { transmitter in
            let ended = Counter()
            func replica(_ index: PostgresSessionIndex, _ cache: PostgresReplayCache) async throws -> SharedSignalsReceiver {
                try await transmitter.receiver { configuration in
                    configuration.replays = cache
                    configuration.sessions = { subject in
                        guard case .issuerSubject(let issuer, let user)? = subject.principals.first else { return [] }
                        return [
                            .custom(
                                end: {
                                    await ended.add()
                                    _ = try await index.deleteSessions(issuer: issuer, subject: user, sessionID: nil)
                                }, refresh: {})
                        ]
                    }
                }
            }
            let a = try await replica(indexes.0, replays.0), b = try await replica(indexes.1, replays.1)
            let token = try await transmitter.sign(Transmitter.event(Transmitter.caep + "session-revoked", subject: "alice"))
            let first = await a.receive(method: "POST", headers: Transmitter.pushHeaders, body: Array(token.utf8))
            let second = await b.receive(method: "POST", headers: Transmitter.pushHeaders, body: Array(token.utf8))
            #expect(first.response.status == 202 && second.response.status == 202)
            #expect(first.outcome?.sessionsAffected == 1 && second.outcome?.error?.code == .replayedSecurityEventToken)
            #expect(await ended.value == 1)
        }
        #expect(try await indexes.1.load(handle: "cookie-a1") == nil)
        #expect(try await indexes.0.load(handle: "cookie-a2") == nil)
        #expect(try await indexes.0.load(handle: "cookie-b1") == Array("bob-1".utf8))
        _ = try await databases.0.execute("DROP TABLE ssf_sessions_\(suffix), ssf_replays_\(suffix)", [])
    }
}
