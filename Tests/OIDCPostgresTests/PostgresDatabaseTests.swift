import Foundation
import OIDC
import Testing

@testable import OIDCPostgres

@Suite("PostgresDatabase against a real server (PG_URL)", .enabled(if: TestDatabase.isRunning))
struct PostgresDatabaseTests {
    @Test("parameters are sent out of band: SQL text in a parameter stays data")
    func parameters() async throws {
        let database = try TestDatabase.open()
        defer { database.close() }
        let hostile = "x'); DROP TABLE pg_class; --"
        let rows = try await database.execute("SELECT $1::text, $2::bytea, $3::text IS NULL", [.text(hostile), .bytes([0, 1, 0xFF]), .null])
        #expect(rows.values == [[hostile, "\\x0001ff", "t"]])
        #expect(try rows.bytes(0, 1, "b") == [0, 1, 0xFF])
        await expectError(.databaseError) { _ = try await database.execute("SELECT $1::text", [.text("a\u{0}b")]) }
    }

    @Test("server errors are typed, name the SQLSTATE and never quote row values")
    func serverError() async throws {
        let database = try TestDatabase.open()
        defer { database.close() }
        let table = try TestDatabase.uniqueTable("unique")
        _ = try await database.execute("CREATE TABLE \(table.quoted) (v text PRIMARY KEY)")
        _ = try await database.execute("INSERT INTO \(table.quoted) VALUES ($1)", [.text("secret-value")])
        do {
            _ = try await database.execute("INSERT INTO \(table.quoted) VALUES ($1)", [.text("secret-value")])
            Issue.record("duplicate accepted")
        } catch let error as OIDCError {
            #expect(error.code == .databaseError)
            #expect(error.reason.contains("23505"))
            #expect(!error.description.contains("secret-value"))
        }
        _ = try await database.execute("DROP TABLE \(table.quoted)")
    }

    @Test("a dropped connection is reopened on its next use")
    func reconnect() async throws {
        let database = try TestDatabase.open(connections: 1)
        let admin = try TestDatabase.open(connections: 1)
        defer { database.close(); admin.close() }
        let pid = try await database.execute("SELECT pg_backend_pid()").text(0, 0, "pid")
        let killed = try await admin.execute("SELECT pg_terminate_backend($1::int)", [.text(pid)])
        #expect(killed.values == [["t"]])
        let after = try await database.execute("SELECT pg_backend_pid()").text(0, 0, "pid")
        #expect(after != pid)
    }

    @Test("an unreachable server and a malformed URL are typed errors")
    func unreachable() async throws {
        await expectError(.databaseError) { _ = try PostgresDatabase(url: "postgresql://%zz@[::1") }
        let database = try PostgresDatabase(url: "postgresql://nobody@127.0.0.1:5474/none?connect_timeout=2")
        defer { database.close() }
        await expectError(.databaseUnavailable) { _ = try await database.execute("SELECT 1") }
        #expect(!"\(database)".contains("nobody"))
        var dumped = ""
        dump(database, to: &dumped)
        #expect(!dumped.contains("nobody"))
    }

    /// Whether the connection of `database` is encrypted (pg_stat_ssl).
    func encrypted(_ database: PostgresDatabase) async throws -> Bool {
        try await database.execute("SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()").text(0, 0, "ssl") == "t"
    }

    @Test(
        "TLS options reach libpq: verify-full with the server's CA is encrypted; a wrong CA and disable are honoured",
        .enabled(if: TestDatabase.rootCertificate != nil))
    func tlsPassThrough() async throws {
        let url = try #require(TestDatabase.url), ca = try #require(TestDatabase.rootCertificate)
        let verified = try PostgresDatabase(url: url + "?sslmode=verify-full&sslrootcert=" + ca)
        defer { verified.close() }
        #expect(try await encrypted(verified))
        let plain = try PostgresDatabase(url: url + "?sslmode=disable")
        defer { plain.close() }
        #expect(try await !encrypted(plain))
        // Another CA (the repository's test certificate) does not vouch for the server: refused.
        let otherCA = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Keys/rsa2048.cert.pem").path
        let wrong = try PostgresDatabase(url: url + "?sslmode=verify-full&sslrootcert=" + otherCA)
        defer { wrong.close() }
        await expectError(.databaseUnavailable) { _ = try await wrong.execute("SELECT 1") }
    }

    @Test("more concurrent statements than connections all complete")
    func pool() async throws {
        let database = try TestDatabase.open(connections: 2)
        defer { database.close() }
        let sum = try await withThrowingTaskGroup(of: Int.self) { group in
            for i in 0..<50 { group.addTask { Int(try await database.execute("SELECT $1::int + 1", [.text(String(i))]).text(0, 0, "n")) ?? -1 } }
            return try await group.reduce(0, +)
        }
        #expect(sum == (1...50).reduce(0, +))
    }
}
