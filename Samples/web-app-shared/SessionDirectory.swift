import Foundation
import JOSE
import OIDC
import OIDCPostgres
import OIDCRedis
import OIDCSession

/// What the app keeps per logged-in browser, behind its opaque session cookie.
struct SessionRecord: Codable, Sendable {
    /// The key of the session's tokens in the token store (random, never the cookie value).
    var tokenKey: String
    var issuer: String
    var subject: String
    /// The ID Token's `sid`, when it had one (back-channel logout by session).
    var sessionID: String?
    /// The login's ID Token (compact): its claims for `/me`, the `id_token_hint` for `/logout`.
    var idToken: String
    /// The ID Token's `email`, when it had one: a Shared Signals subject of format `email` finds the user by it.
    var email: String?
}

/// The session index: cookie → record, found again by `sid` or `iss` + `sub` for back-channel logout,
/// and the token store of each session.
protocol SessionDirectory: Sendable {
    func save(_ record: SessionRecord, handle: String) async throws
    func load(handle: String) async throws -> SessionRecord?
    /// Deletes the session and its tokens; returns its record.
    func delete(handle: String) async throws -> SessionRecord?
    /// Deletes the sessions a logout token names, and their tokens; returns how many.
    func deleteSessions(issuer: String, subject: String?, sessionID: String?) async throws -> Int
    func tokenStore(for record: SessionRecord) throws -> any TokenStore
    /// The users (`iss` + `sub`) whose sessions carry `email` (compared case-insensitively), for a Shared Signals SET
    /// whose subject is an e-mail address: their sessions are about to end (PostgreSQL: the e-mail rows are taken).
    func users(withEmail email: String) async throws -> [SessionUser]
}

/// A logged-in user: the provider and the user's `sub` there.
struct SessionUser: Codable, Hashable, Sendable {
    var issuer: String
    var subject: String

    /// The e-mail index's key for `email`: the SHA-256 of the lower-cased address (never the address itself).
    static func emailKey(_ email: String) -> String { SDJWTHashAlgorithm.sha256.digest(of: email.lowercased()) }
}

/// How long a session lives without a new login.
let sessionLifetime: Double = 8 * 3600

/// Sessions in this process's memory (one instance).
actor InMemorySessionDirectory: SessionDirectory {
    private var records: [String: (record: SessionRecord, expiresAt: Date)] = [:]
    private var tokens: [String: InMemoryTokenStore] = [:]

    func save(_ record: SessionRecord, handle: String) {
        records = records.filter { $0.value.expiresAt > Date() }
        records[handle] = (record, Date().addingTimeInterval(sessionLifetime))
        if tokens[record.tokenKey] == nil { tokens[record.tokenKey] = InMemoryTokenStore() }
    }

    func load(handle: String) -> SessionRecord? {
        guard let entry = records[handle], entry.expiresAt > Date() else { return nil }
        return entry.record
    }

    func delete(handle: String) -> SessionRecord? {
        guard let entry = records.removeValue(forKey: handle) else { return nil }
        tokens[entry.record.tokenKey] = nil
        return entry.record
    }

    func deleteSessions(issuer: String, subject: String?, sessionID: String?) -> Int {
        let matching = records.filter { Self.matches($0.value.record, issuer: issuer, subject: subject, sessionID: sessionID) }
        for (handle, entry) in matching {
            records[handle] = nil
            tokens[entry.record.tokenKey] = nil
        }
        return matching.count
    }

    nonisolated func tokenStore(for record: SessionRecord) throws -> any TokenStore {
        // Looked up through the actor on each use, so a deleted session's store is gone.
        InMemorySessionTokens(directory: self, key: record.tokenKey)
    }

    fileprivate func store(_ key: String) -> InMemoryTokenStore? { tokens[key] }

    func users(withEmail email: String) -> [SessionUser] {
        let wanted = email.lowercased()
        let found = records.values.filter { $0.expiresAt > Date() && $0.record.email?.lowercased() == wanted }
        return Array(Set(found.map { SessionUser(issuer: $0.record.issuer, subject: $0.record.subject) }))
    }

    /// The rule of PostgresSessionIndex.deleteSessions, for the in-memory index.
    static func matches(_ record: SessionRecord, issuer: String, subject: String?, sessionID: String?) -> Bool {
        guard record.issuer == issuer else { return false }
        switch (subject, sessionID) {
        case (let subject?, let sid?): return record.sessionID == sid || (record.sessionID == nil && record.subject == subject)
        case (nil, let sid?): return record.sessionID == sid
        case (let subject?, nil): return record.subject == subject
        case (nil, nil): return false
        }
    }
}

/// A session's in-memory tokens, reached through the directory (nothing once the session ended).
struct InMemorySessionTokens: TokenStore {
    let directory: InMemorySessionDirectory
    let key: String
    func save(_ tokens: TokenResponse) async throws {
        guard let store = await directory.store(key) else { throw OIDCError(.notAuthenticated, "the session has ended") }
        await store.save(tokens)
    }
    func load() async throws -> TokenResponse? { await directory.store(key)?.load() }
    func clear() async throws { await directory.store(key)?.clear() }
}

/// Sessions in PostgreSQL, shared by every instance: OIDCPostgres's PostgresSessionIndex for the
/// index, PostgresTokenStore for each session's tokens (refresh coordinated across instances).
struct PostgresSessionDirectory: SessionDirectory {
    let database: PostgresDatabase
    let index: PostgresSessionIndex
    /// E-mail → user, for Shared Signals subjects of format `email`: a second session index whose rows are keyed by
    /// the same session handles, with `issuer` "email" and `subject` the SHA-256 of the lower-cased address (never
    /// the address itself), each holding the user (`SessionUser`).
    let emails: PostgresSessionIndex
    let encryption: TokenEncryption?

    init(database: PostgresDatabase, encryption: TokenEncryption?) throws {
        self.database = database
        self.encryption = encryption
        index = try PostgresSessionIndex(database: database, encryption: encryption)
        emails = try PostgresSessionIndex(database: database, table: TableName("hbapp_session_emails"), encryption: encryption)
    }

    func createTables() async throws {
        try await index.createTable()
        try await emails.createTable()
        try await PostgresTokenStore(database: database, key: "-", encryption: encryption).createTable()
    }

    func save(_ record: SessionRecord, handle: String) async throws {
        try await index.save(
            try JSONEncoder().encode(record).map { $0 }, handle: handle, issuer: record.issuer,
            subject: record.subject, sessionID: record.sessionID, expiresIn: sessionLifetime)
        if let email = record.email, !email.isEmpty {
            try await emails.save(
                try JSONEncoder().encode(SessionUser(issuer: record.issuer, subject: record.subject)).map { $0 }, handle: handle,
                issuer: "email", subject: SessionUser.emailKey(email), sessionID: nil, expiresIn: sessionLifetime)
        }
    }

    func users(withEmail email: String) async throws -> [SessionUser] {
        let rows = try await emails.deleteSessions(issuer: "email", subject: SessionUser.emailKey(email), sessionID: nil)
        return Array(Set(rows.compactMap { try? JSONDecoder().decode(SessionUser.self, from: Data($0)) }))
    }

    func load(handle: String) async throws -> SessionRecord? {
        guard let bytes = try await index.load(handle: handle) else { return nil }
        return try? JSONDecoder().decode(SessionRecord.self, from: Data(bytes))
    }

    func delete(handle: String) async throws -> SessionRecord? {
        try await emails.delete(handle: handle)
        guard let bytes = try await index.delete(handle: handle),
            let record = try? JSONDecoder().decode(SessionRecord.self, from: Data(bytes))
        else { return nil }
        try await tokenStore(for: record).clear()
        return record
    }

    func deleteSessions(issuer: String, subject: String?, sessionID: String?) async throws -> Int {
        let deleted = try await index.deleteSessions(issuer: issuer, subject: subject, sessionID: sessionID)
        for bytes in deleted {
            if let record = try? JSONDecoder().decode(SessionRecord.self, from: Data(bytes)) {
                try await tokenStore(for: record).clear()
            }
        }
        return deleted.count
    }

    func tokenStore(for record: SessionRecord) throws -> any TokenStore {
        try PostgresTokenStore(database: database, key: record.tokenKey, encryption: encryption)
    }
}

/// Sessions in Redis or Valkey, shared by every instance: OIDCRedis's RedisSessionIndex for the index
/// (keys `hbapp:sessions:…`), RedisTokenStore for each session's tokens (`hbapp:tokens:…`, refresh
/// coordinated across instances by its lease): the same operations as ``PostgresSessionDirectory``.
struct RedisSessionDirectory: SessionDirectory {
    let database: RedisDatabase
    let index: RedisSessionIndex
    /// E-mail → user, as ``PostgresSessionDirectory/emails`` (keys `hbapp:session-emails:…`).
    let emails: RedisSessionIndex
    let encryption: TokenEncryption?

    init(database: RedisDatabase, encryption: TokenEncryption?) throws {
        self.database = database
        self.encryption = encryption
        index = try RedisSessionIndex(database: database, namespace: "hbapp:sessions", encryption: encryption)
        emails = try RedisSessionIndex(database: database, namespace: "hbapp:session-emails", encryption: encryption)
    }

    /// Reaches the server once (a lookup of a handle no session has), so a wrong URL, password or CA stops the start.
    func check() async throws {
        _ = try await index.load(handle: "hbapp-start-check")
    }

    func save(_ record: SessionRecord, handle: String) async throws {
        try await index.save(
            try JSONEncoder().encode(record).map { $0 }, handle: handle, issuer: record.issuer,
            subject: record.subject, sessionID: record.sessionID, expiresIn: sessionLifetime)
        if let email = record.email, !email.isEmpty {
            try await emails.save(
                try JSONEncoder().encode(SessionUser(issuer: record.issuer, subject: record.subject)).map { $0 }, handle: handle,
                issuer: "email", subject: SessionUser.emailKey(email), sessionID: nil, expiresIn: sessionLifetime)
        }
    }

    func users(withEmail email: String) async throws -> [SessionUser] {
        let rows = try await emails.deleteSessions(issuer: "email", subject: SessionUser.emailKey(email), sessionID: nil)
        return Array(Set(rows.compactMap { try? JSONDecoder().decode(SessionUser.self, from: Data($0)) }))
    }

    func load(handle: String) async throws -> SessionRecord? {
        guard let bytes = try await index.load(handle: handle) else { return nil }
        return try? JSONDecoder().decode(SessionRecord.self, from: Data(bytes))
    }

    func delete(handle: String) async throws -> SessionRecord? {
        _ = try await emails.delete(handle: handle)
        guard let bytes = try await index.delete(handle: handle),
            let record = try? JSONDecoder().decode(SessionRecord.self, from: Data(bytes))
        else { return nil }
        try await tokenStore(for: record).clear()
        return record
    }

    func deleteSessions(issuer: String, subject: String?, sessionID: String?) async throws -> Int {
        let deleted = try await index.deleteSessions(issuer: issuer, subject: subject, sessionID: sessionID)
        for bytes in deleted {
            if let record = try? JSONDecoder().decode(SessionRecord.self, from: Data(bytes)) {
                try await tokenStore(for: record).clear()
            }
        }
        return deleted.count
    }

    func tokenStore(for record: SessionRecord) throws -> any TokenStore {
        try RedisTokenStore(database: database, key: record.tokenKey, namespace: "hbapp:tokens", encryption: encryption)
    }
}
