import Foundation
import OIDC
import Testing

@testable import OIDCPostgres

@Suite("PostgresSessionIndex against a real server (PG_URL)", .enabled(if: TestDatabase.isRunning))
struct PostgresSessionIndexTests {
    func makeIndex(_ database: PostgresDatabase, _ table: TableName) throws -> PostgresSessionIndex {
        try PostgresSessionIndex(database: database, table: table, encryption: TokenEncryption(current: TestDatabase.key("k1", 5)))
    }

    @Test("saved on one replica, loaded on another, deleted once; the handle and record are not stored in the clear")
    func acrossReplicas() async throws {
        let a = try TestDatabase.open(), b = try TestDatabase.open()
        defer { a.close(); b.close() }
        let table = try TestDatabase.uniqueTable("sessions")
        try await makeIndex(a, table).createTable()
        try await makeIndex(a, table).save(
            Array("record-secret".utf8), handle: "cookie-1", issuer: "https://idp", subject: "alice",
            sessionID: "sid-1", expiresIn: 600)
        let raw = try await a.execute("SELECT encode(handle_hash, 'escape'), encode(payload, 'escape') FROM \(table.quoted)")
        #expect(!(try raw.text(0, 0, "hash")).contains("cookie-1"))
        #expect(!(try raw.text(0, 1, "payload")).contains("record-secret"))
        #expect(try await makeIndex(b, table).load(handle: "cookie-1") == Array("record-secret".utf8))
        #expect(try await makeIndex(b, table).load(handle: "other") == nil)
        #expect(try await makeIndex(b, table).delete(handle: "cookie-1") == Array("record-secret".utf8))
        #expect(try await makeIndex(a, table).load(handle: "cookie-1") == nil)
        #expect(try await makeIndex(a, table).delete(handle: "cookie-1") == nil)
    }

    @Test("a logout token's sid ends that session and the subject's sessions without sid; sub alone ends all of the subject's")
    func deleteByLogoutToken() async throws {
        let db = try TestDatabase.open()
        defer { db.close() }
        let table = try TestDatabase.uniqueTable("sessions")
        let index = try makeIndex(db, table)
        try await index.createTable()
        for (handle, subject, sid) in [("h1", "alice", "s1"), ("h2", "alice", "s2"), ("h3", "alice", nil), ("h4", "bob", nil)] as [(String, String, String?)] {
            try await index.save(Array(handle.utf8), handle: handle, issuer: "https://idp", subject: subject, sessionID: sid, expiresIn: 600)
        }
        try await index.save(Array("h5".utf8), handle: "h5", issuer: "https://other", subject: "alice", sessionID: "s1", expiresIn: 600)
        let bySid = try await index.deleteSessions(issuer: "https://idp", subject: "alice", sessionID: "s1")
        #expect(Set(bySid.map { String(decoding: $0, as: UTF8.self) }) == ["h1", "h3"])
        #expect(try await index.load(handle: "h2") != nil)
        #expect(try await index.load(handle: "h5") != nil)
        let bySubject = try await index.deleteSessions(issuer: "https://idp", subject: "alice", sessionID: nil)
        #expect(bySubject.map { String(decoding: $0, as: UTF8.self) } == ["h2"])
        #expect(try await index.deleteSessions(issuer: "https://idp", subject: nil, sessionID: nil).isEmpty)
        #expect(try await index.load(handle: "h4") != nil)
    }

    @Test("an expired session is never loaded, and save purges it")
    func expiry() async throws {
        let db = try TestDatabase.open()
        defer { db.close() }
        let table = try TestDatabase.uniqueTable("sessions")
        let index = try makeIndex(db, table)
        try await index.createTable()
        try await index.save([1], handle: "old", issuer: "https://idp", subject: "alice", sessionID: nil, expiresIn: 60)
        _ = try await db.execute("UPDATE \(table.quoted) SET expires_at = now() - interval '1 second'")
        #expect(try await index.load(handle: "old") == nil)
        try await index.save([2], handle: "new", issuer: "https://idp", subject: "alice", sessionID: nil, expiresIn: 60)
        #expect(try await db.execute("SELECT 1 FROM \(table.quoted)").values.count == 1)
        await #expect(throws: OIDCError.self) {
            try await index.save([3], handle: "x", issuer: "https://idp", subject: "", sessionID: nil, expiresIn: 60)
        }
    }
}
