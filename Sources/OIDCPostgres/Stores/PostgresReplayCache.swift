import JOSE
import OIDC
import OIDCResourceServer

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A ``/OIDCCore/ReplayCache`` in PostgreSQL, shared by every replica: a DPoP proof or a
/// logout token used at one replica is refused as a replay at every other.
///
/// - One table, primary key (`scope`, `identifier`), with the entry's `expires_at`. The identifier
///   (a `jti`, chosen by whoever made the token) is stored as its SHA-256, so its length and bytes
///   never reach an index or a statement's text; the scope (an issuer, a key thumbprint) is stored as given.
/// - A first use is one `INSERT … ON CONFLICT (scope, identifier) DO UPDATE … WHERE expires_at <= now`
///   statement: it inserts the identifier, or takes over an entry that has expired, and reports
///   whether it did. Of any number of concurrent first uses of one identifier, on any replicas,
///   exactly one is told "first use".
/// - Bounded per scope: at most `scopeCapacity` live entries per scope (a proof key's thumbprint, an
///   issuer), counted on the (`scope`, `expires_at`) index in the same statement as the insert. A scope
///   whose share is full gets ``/OIDCCore/ReplayCacheOutcome/full`` for its new identifiers
///   (`replay_cache_full` at the validator, never a replay), and no other scope is affected. Concurrent
///   first uses in one scope on several replicas can pass the bound by at most their number. A check in
///   a full scope costs an index range scan of at most `scopeCapacity` entries.
/// - Expiry and "now" are the validator's (``recordFirstUse(of:scope:until:now:)``), as the
///   ``/OIDCCore/ReplayCache`` contract says; replicas' clocks should agree (NTP) as for every time check.
/// - Expired rows are deleted every `cleanupInterval` first-use checks of this instance, at most
///   `cleanupBatch` rows at a time, and by ``purgeExpired(now:limit:)``, so the table does not grow without bound.
/// - Only parameterized statements; failures are `OIDCError` `database_unavailable` / `database_error`
///   (the validator then refuses the token: an unanswered replay check never passes).
public struct PostgresReplayCache: ReplayCache, CustomStringConvertible {
    /// The pool the cache uses.
    package let database: PostgresDatabase
    /// The table (default `oidc_replay_cache`).
    public let table: TableName
    /// Expired rows are deleted after every this many first-use checks of this instance (at least 1).
    package let cleanupInterval: Int
    /// The most expired rows one cleanup deletes (1 to 1 000 000).
    package let cleanupBatch: Int
    /// The most live entries one scope may hold (default 10 000; at least 1).
    package let scopeCapacity: Int
    private let checks = Locked(0)

    /// A cache in `table` (see ``createTable()``).
    /// - Parameters:
    ///   - database: the pool; every replica opens its own on the same database.
    ///   - table: the table name (default `oidc_replay_cache`), under ``TableName``'s rules.
    ///   - cleanupInterval: delete expired rows after every this many checks (default 256; values below 1 count as 1).
    ///   - cleanupBatch: at most this many rows per cleanup (default 1000; clamped to 1 ... 1 000 000).
    ///   - scopeCapacity: the most live entries of one scope (default 10 000; values below 1 count as 1).
    /// - Throws: `invalid_table_name`.
    public init(
        database: PostgresDatabase, table: TableName? = nil, cleanupInterval: Int = 256, cleanupBatch: Int = 1000,
        scopeCapacity: Int = 10_000
    ) throws {
        self.database = database
        self.table = try table ?? TableName("oidc_replay_cache")
        self.cleanupInterval = max(1, cleanupInterval)
        self.cleanupBatch = min(max(1, cleanupBatch), 1_000_000)
        self.scopeCapacity = max(1, scopeCapacity)
    }

    /// `PostgresReplayCache(table: NAME)`.
    public var description: String { "PostgresReplayCache(table: \(table))" }

    /// Creates the table, its expiry index and its per-scope index if they do not exist (an existing
    /// table gains the per-scope index).
    public func createTable() async throws {
        try await database.createSchema([
            """
            CREATE TABLE IF NOT EXISTS \(table.quoted) (
                scope text NOT NULL,
                identifier bytea NOT NULL,
                expires_at timestamptz NOT NULL,
                PRIMARY KEY (scope, identifier)
            )
            """,
            "CREATE INDEX IF NOT EXISTS \(table.derived("expires_at")) ON \(table.quoted) (expires_at)",
            "CREATE INDEX IF NOT EXISTS \(table.derived("scope_expires_at")) ON \(table.quoted) (scope, expires_at)",
        ])
    }

    /// Records `identifier` within `scope` until `expiry`, atomically across replicas.
    /// - Returns: ``/OIDCCore/ReplayCacheOutcome/firstUse`` when no live entry existed and the scope
    ///   had room (inserted, or an expired one taken over); ``/OIDCCore/ReplayCacheOutcome/replayed``
    ///   when one is recorded with an expiry after `now`; ``/OIDCCore/ReplayCacheOutcome/full`` when
    ///   the scope already holds `scopeCapacity` live entries.
    /// - Throws: `database_unavailable`, `database_error`.
    public func recordFirstUse(of identifier: String, scope: String, until expiry: Date, now: Date) async throws -> ReplayCacheOutcome {
        let digest = DigestAlgorithm.sha256.hash(Array(identifier.utf8))
        let nowText = Self.nowSeconds(now)
        // Inserted only while the scope holds fewer than scopeCapacity live entries (counted on the
        // (scope, expires_at) index, at most scopeCapacity of them).
        let rows = try await database.execute(
            """
            INSERT INTO \(table.quoted) AS entry (scope, identifier, expires_at)
            SELECT $1::text, $2::bytea, to_timestamp($3::double precision)
            WHERE (SELECT count(*) FROM (SELECT 1 FROM \(table.quoted) WHERE scope = $1::text AND expires_at > to_timestamp($4::double precision)
                   LIMIT $5::integer) AS live) < $5::integer
            ON CONFLICT (scope, identifier) DO UPDATE SET expires_at = EXCLUDED.expires_at
            WHERE entry.expires_at <= to_timestamp($4::double precision)
            RETURNING 1
            """, [.text(scope), .bytes(digest), .text(Self.expirySeconds(expiry)), .text(nowText), .text(String(scopeCapacity))])
        var outcome = ReplayCacheOutcome.firstUse
        if rows.values.count != 1 {
            // Not inserted: a live entry (a replay), else the scope's share is full.
            let live = try await database.execute(
                """
                SELECT 1 FROM \(table.quoted) WHERE scope = $1 AND identifier = $2 AND expires_at > to_timestamp($3::double precision)
                """, [.text(scope), .bytes(digest), .text(nowText)])
            outcome = live.values.isEmpty ? .full : .replayed
        }
        let due = checks.withLock { count -> Bool in
            count += 1
            guard count >= cleanupInterval else { return false }
            count = 0
            return true
        }
        // Maintenance only: the answer above stands whatever happens here; a failed cleanup is
        // retried after the next interval (and purgeExpired reports its errors).
        if due { _ = try? await purgeExpired(now: now, limit: cleanupBatch) }
        return outcome
    }

    /// Forgets `identifier` within `scope` on every replica (``/OIDCCore/ReleasableReplayCache``).
    /// - Throws: `database_unavailable`, `database_error`.
    package func release(_ identifier: String, scope: String) async throws {
        let digest = DigestAlgorithm.sha256.hash(Array(identifier.utf8))
        _ = try await database.execute("DELETE FROM \(table.quoted) WHERE scope = $1 AND identifier = $2", [.text(scope), .bytes(digest)])
    }

    /// Deletes entries expired at `now`: at most `limit` (default `cleanupBatch`; clamped to 1 ... 1 000 000), oldest first.
    /// - Returns: how many were deleted.
    /// - Throws: `database_unavailable`, `database_error`.
    @discardableResult
    public func purgeExpired(now: Date = Date(), limit: Int? = nil) async throws -> Int {
        let limit = min(max(1, limit ?? cleanupBatch), 1_000_000)
        return try await database.execute(
            """
            DELETE FROM \(table.quoted) WHERE (scope, identifier) IN (
                SELECT scope, identifier FROM \(table.quoted) WHERE expires_at <= to_timestamp($1::double precision)
                ORDER BY expires_at LIMIT $2::integer FOR UPDATE SKIP LOCKED)
            AND expires_at <= to_timestamp($1::double precision)
            """, [.text(Self.nowSeconds(now)), .text(String(limit))]
        ).affected
    }

    /// The latest and earliest seconds sent as themselves: within PostgreSQL's timestamp range
    /// (4713 BC ... 294276 AD), so no value from a caller fails the statement.
    static let latestSeconds: Double = 9_000_000_000_000, earliestSeconds: Double = -200_000_000_000

    /// An expiry as the `double precision` text `to_timestamp` takes: later than the range or NaN
    /// is `Infinity` (remembered for good: a cache refuses rather than forgets), earlier is `-Infinity`.
    static func expirySeconds(_ date: Date) -> String {
        let value = date.timeIntervalSince1970
        if value.isNaN || value > latestSeconds { return "Infinity" }
        if value < earliestSeconds { return "-Infinity" }
        return String(value)
    }

    /// "Now" as that text: later than the range counts as the range's end (so an entry remembered for
    /// good stays live), earlier or NaN as `-Infinity` (nothing has expired).
    static func nowSeconds(_ date: Date) -> String {
        let value = date.timeIntervalSince1970
        if value.isNaN || value < earliestSeconds { return "-Infinity" }
        return String(min(value, latestSeconds))
    }
}

extension PostgresReplayCache: ReleasableReplayCache {}
