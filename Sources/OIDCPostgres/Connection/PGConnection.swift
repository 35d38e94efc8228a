import CLibPQ
import OIDC

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One statement parameter, sent out of band (`PQexecParams`): never spliced into SQL.
package enum PGParameter: Sendable {
    /// Text (format 0). Must not contain NUL.
    case text(String)
    /// Raw bytes (format 1), e.g. for `bytea`.
    case bytes([UInt8])
    /// SQL `NULL`.
    case null
}

/// The rows of a result, every value in PostgreSQL's text form (`nil` for `NULL`).
package struct PGRows: Sendable {
    /// Rows, then columns.
    package let values: [[String?]]
    /// Rows affected (`PQcmdTuples`), 0 when not reported.
    package let affected: Int

    /// The text of `column` in `row`, or a typed error naming `what` when missing or `NULL`.
    package func text(_ row: Int, _ column: Int, _ what: String) throws -> String {
        guard row < values.count, column < values[row].count, let value = values[row][column] else {
            throw OIDCError(.invalidDatabaseRow, "the database row has no \(what)")
        }
        return value
    }

    /// A `bytea` column in `row`, decoded from its text form by libpq (`PQunescapeBytea`).
    package func bytes(_ row: Int, _ column: Int, _ what: String) throws -> [UInt8] {
        let text = try self.text(row, column, what)
        guard text.hasPrefix("\\x") else { throw OIDCError(.invalidDatabaseRow, "the \(what) in the database is not hex bytea") }
        var length = 0
        guard let decoded = PQunescapeBytea(text, &length) else {
            throw OIDCError(.invalidDatabaseRow, "the \(what) in the database does not decode")
        }
        defer { PQfreemem(decoded) }
        return Array(UnsafeBufferPointer(start: decoded, count: length))
    }
}

/// Runs `body` with a NULL-terminated array of C strings.
private func withCStrings<R>(_ strings: [String], _ body: (UnsafePointer<UnsafePointer<CChar>?>?) -> R) -> R {
    var pointers: [UnsafePointer<CChar>?] = strings.map { UnsafePointer(strdup($0)) }
    pointers.append(nil)
    defer { for pointer in pointers { free(UnsafeMutablePointer(mutating: pointer)) } }
    return pointers.withUnsafeBufferPointer { body($0.baseAddress) }
}

/// One libpq connection. Not thread-safe: it lives on one ``PGWorker`` thread,
/// which is the only caller of its blocking functions.
package final class PGConnection {
    private let conninfo: String
    private let statementTimeoutMilliseconds: Int
    private let lockTimeoutMilliseconds: Int?
    private var handle: OpaquePointer?
    /// Whether a transaction was begun and not yet ended (no silent reconnect then).
    package private(set) var inTransaction = false

    /// A connection to `conninfo`; `statementTimeoutMilliseconds` is set on it (as `statement_timeout`)
    /// unless the server already applies one (the URL's `options`, the role or the database);
    /// `lockTimeoutMilliseconds`, when given, is set as `lock_timeout` whatever the server says (the
    /// lease connection: one statement waiting for a lock must not hold up every other lease's renewal).
    init(
        conninfo: String, statementTimeoutMilliseconds: Int = PGConnection.defaultStatementTimeoutMilliseconds,
        lockTimeoutMilliseconds: Int? = nil
    ) {
        self.conninfo = conninfo
        self.statementTimeoutMilliseconds = statementTimeoutMilliseconds
        self.lockTimeoutMilliseconds = lockTimeoutMilliseconds
    }

    /// 30 s: far above any statement this module sends, well below "hung forever".
    package static let defaultStatementTimeoutMilliseconds = 30_000

    /// libpq defaults placed before the caller's string, which overrides any of them: TCP keepalives
    /// (a silent peer is declared dead after about 5 + 3 × 2 = 11 s idle), `tcp_user_timeout` (data
    /// sent and not acknowledged for 10 s drops the connection; Linux only, ignored elsewhere), a
    /// `connect_timeout` of 10 s. A partitioned replica thus learns in seconds that its connection is gone.
    package static let defaultOptions: [(String, String)] = [
        ("connect_timeout", "10"), ("application_name", "oidc-toolkit"), ("keepalives", "1"), ("keepalives_idle", "5"),
        ("keepalives_interval", "2"), ("keepalives_count", "3"), ("tcp_user_timeout", "10000"),
    ]

    deinit { if let handle { PQfinish(handle) } }

    /// Whether the connection is open and usable.
    package var isOpen: Bool { handle.map { PQstatus($0) == CONNECTION_OK } ?? false }

    /// Connects, or reconnects after a dropped connection.
    func connectIfNeeded() throws {
        if let handle, PQstatus(handle) == CONNECTION_OK { return }
        close()
        // Defaults first: a later keyword wins, so the caller's string overrides them.
        let keywords = Self.defaultOptions.map(\.0) + ["dbname"], values = Self.defaultOptions.map(\.1) + [conninfo]
        let opened: OpaquePointer? = withCStrings(keywords) { keywords in
            withCStrings(values) { values in PQconnectdbParams(keywords, values, 1) }
        }
        guard let fresh = opened else {
            throw OIDCError(.databaseUnavailable, "cannot connect to PostgreSQL: out of memory")
        }
        guard PQstatus(fresh) == CONNECTION_OK else {
            let message = Self.text(PQerrorMessage(fresh))
            PQfinish(fresh)
            throw OIDCError(.databaseUnavailable, "cannot connect to PostgreSQL: \(message)")
        }
        handle = fresh
        // statement_timeout, unless the URL's options, the role or the database set one already.
        do {
            _ = try execute(
                """
                SELECT CASE WHEN current_setting('statement_timeout') = '0' THEN set_config('statement_timeout', $1, false) END
                """, [.text("\(statementTimeoutMilliseconds)ms")])
            if let lockTimeoutMilliseconds {
                _ = try execute("SELECT set_config('lock_timeout', $1, false)", [.text("\(lockTimeoutMilliseconds)ms")])
            }
        } catch {
            close()
            throw error
        }
    }

    /// The value libpq uses for connection option `keyword` (`PQconninfo`), or `nil` when unset or not connected.
    package func option(_ keyword: String) -> String? {
        guard let handle, let options = PQconninfo(handle) else { return nil }
        defer { PQconninfoFree(options) }
        var index = 0
        while let name = options[index].keyword {
            if String(cString: name) == keyword { return options[index].val.map { String(cString: $0) } }
            index += 1
        }
        return nil
    }

    /// The socket of the open connection (for `poll`), or `nil`.
    package var socket: Int32? {
        guard let handle, PQstatus(handle) == CONNECTION_OK else { return nil }
        let descriptor = PQsocket(handle)
        return descriptor >= 0 ? descriptor : nil
    }

    /// Reads what the server sent (`PQconsumeInput`) and returns the payloads of the notifications
    /// received on `channel` (`PQnotifies`); `nil` when the connection is lost (it is then closed).
    package func consumeNotifications(channel: String) -> [String]? {
        guard let handle, PQstatus(handle) == CONNECTION_OK, PQconsumeInput(handle) == 1 else {
            close()
            return nil
        }
        var payloads: [String] = []
        while let notification = PQnotifies(handle) {
            if Self.text(notification.pointee.relname) == channel { payloads.append(Self.text(notification.pointee.extra)) }
            PQfreemem(notification)
        }
        if PQstatus(handle) != CONNECTION_OK {
            close()
            return nil
        }
        return payloads
    }

    /// Closes the connection (the server ends any open transaction, releasing its locks).
    package func close() {
        if let handle { PQfinish(handle) }
        handle = nil
        inTransaction = false
    }

    /// Runs one parameterized statement (`PQexecParams`, text results).
    /// - Throws: `database_unavailable` when the connection is lost, `database_error` when the server refuses.
    package func execute(_ sql: String, _ parameters: [PGParameter] = []) throws -> PGRows {
        try connectIfNeeded()
        guard let handle else { throw OIDCError(.databaseUnavailable, "no PostgreSQL connection") }
        guard parameters.count <= Int(Int16.max) else { throw OIDCError(.databaseError, "too many statement parameters") }
        var buffers: [UnsafeMutablePointer<CChar>?] = []
        var lengths: [Int32] = []
        var formats: [Int32] = []
        defer { for buffer in buffers { free(buffer) } }
        for parameter in parameters {
            switch parameter {
            case .text(let text):
                guard !text.utf8.contains(0) else { throw OIDCError(.databaseError, "a text parameter contains NUL") }
                buffers.append(strdup(text))
                lengths.append(0)
                formats.append(0)
            case .bytes(let bytes):
                guard bytes.count < Int(Int32.max) else { throw OIDCError(.databaseError, "a bytes parameter is too large") }
                let buffer = malloc(max(bytes.count, 1))?.assumingMemoryBound(to: CChar.self)
                bytes.withUnsafeBytes { source in
                    if let buffer, let base = source.baseAddress { memcpy(buffer, base, source.count) }
                }
                buffers.append(buffer)
                lengths.append(Int32(bytes.count))
                formats.append(1)
            case .null:
                buffers.append(nil)
                lengths.append(0)
                formats.append(0)
            }
        }
        let result: OpaquePointer? = buffers.withUnsafeBufferPointer { values in
            values.withMemoryRebound(to: UnsafePointer<CChar>?.self) { values in
                PQexecParams(handle, sql, Int32(parameters.count), nil, values.baseAddress, lengths, formats, 0)
            }
        }
        defer { PQclear(result) }
        let status = result.map { PQresultStatus($0) } ?? PGRES_FATAL_ERROR
        guard status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK, let result else {
            if PQstatus(handle) != CONNECTION_OK {
                let message = Self.text(PQerrorMessage(handle))
                close()
                throw OIDCError(.databaseUnavailable, "the PostgreSQL connection was lost: \(message)")
            }
            // SQLSTATE and the primary message only: the DETAIL of an error may quote row values.
            let state = result.map { Self.text(PQresultErrorField($0, Int32(UInt8(ascii: "C")))) } ?? ""
            let primary = result.map { Self.text(PQresultErrorField($0, Int32(UInt8(ascii: "M")))) } ?? Self.text(PQerrorMessage(handle))
            if state == "55P03" { throw OIDCError(.databaseLockTimeout, "a lock was not granted within lock_timeout: \(primary)") }
            if state == "57014" { throw OIDCError(.databaseStatementTimeout, "a statement was cancelled (statement_timeout): \(primary)") }
            throw OIDCError(.databaseError, "PostgreSQL refused the statement (SQLSTATE \(state.isEmpty ? "unknown" : state)): \(primary)")
        }
        let upper = sql.prefix(8).uppercased()
        if upper.hasPrefix("BEGIN") { inTransaction = true }
        if upper.hasPrefix("COMMIT") || upper.hasPrefix("ROLLBACK") { inTransaction = false }
        var rows: [[String?]] = []
        let rowCount = Int(PQntuples(result)), columnCount = Int(PQnfields(result))
        rows.reserveCapacity(rowCount)
        for row in 0..<rowCount {
            var values: [String?] = []
            for column in 0..<columnCount {
                if PQgetisnull(result, Int32(row), Int32(column)) == 1 {
                    values.append(nil)
                } else {
                    values.append(Self.text(PQgetvalue(result, Int32(row), Int32(column))))
                }
            }
            rows.append(values)
        }
        return PGRows(values: rows, affected: Int(Self.text(PQcmdTuples(result))) ?? 0)
    }

    /// A C string from libpq as Swift text (invalid UTF-8 repaired, trailing newline dropped).
    private static func text(_ pointer: UnsafePointer<CChar>?) -> String {
        guard let pointer else { return "" }
        var text = String(
            decoding: UnsafeRawPointer(pointer).assumingMemoryBound(to: UInt8.self)
                .withMemoryRebound(to: UInt8.self, capacity: strlen(pointer)) { UnsafeBufferPointer(start: $0, count: strlen(pointer)) },
            as: UTF8.self)
        while text.hasSuffix("\n") { text.removeLast() }
        return text
    }
    private static func text(_ pointer: UnsafeMutablePointer<CChar>?) -> String { text(UnsafePointer(pointer)) }
}
