import Foundation
import OIDC
import OIDCPostgres
import Testing

/// The PostgreSQL server started by `Tests/run.sh` (Tests/Postgres/start.sh); tests skip when unset.
enum TestDatabase {
    static let url = ProcessInfo.processInfo.environment["PG_URL"]
    /// The CA of the test server's TLS certificate (Tests/Postgres/start.sh), when given.
    static let rootCertificate = ProcessInfo.processInfo.environment["PG_SSLROOTCERT"]
    static var isRunning: Bool { url != nil }

    /// A new pool on the test server (each pool stands for one replica).
    static func open(connections: Int = 4) throws -> PostgresDatabase {
        try PostgresDatabase(url: try #require(url), maximumConnections: connections)
    }

    /// A pool whose connections carry `application_name`, so a test can terminate exactly them.
    static func open(connections: Int = 4, application: String, extra: String = "", statementTimeout: Double = 30) throws -> PostgresDatabase {
        let base = try #require(url)
        return try PostgresDatabase(
            url: base + (base.contains("?") ? "&" : "?") + "application_name=\(application)" + extra,
            maximumConnections: connections, statementTimeout: statementTimeout)
    }

    /// A table name no other test uses.
    static func uniqueTable(_ prefix: String) throws -> TableName {
        try TableName("\(prefix)_\(UInt64.random(in: 0...UInt64.max) % 1_000_000_000_000)")
    }

    static func key(_ id: String, _ byte: UInt8) throws -> TokenEncryptionKey {
        try TokenEncryptionKey(id: id, bytes: [UInt8](repeating: byte, count: 32))
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
