#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import JOSE
import OIDC

/// Logins in progress, kept server-side between the redirect to the provider and its answer:
/// saved under the request's `state` when the login starts, **consumed exactly once** when
/// the callback comes back, and refused once expired.
///
/// Every implementation guarantees: a second ``consumeBytes(state:)`` for the same `state`
/// (a replayed callback) fails with `pending_login_not_found`; an entry past its expiry is
/// never returned (`pending_login_expired`, and it is deleted); saving a `state` that is
/// already saved fails with `pending_login_exists`.
///
/// Implementations: ``InMemoryPendingLoginStore`` (one process), ``FilePendingLoginStore``
/// (one machine, survives restarts), and OIDCPostgres's `PostgresPendingLoginStore` (many replicas).
///
/// Logins are started by unauthenticated requests, so whoever can reach the login route can fill
/// a store. A save may name a *scope* (``saveBytes(_:state:expiresIn:scope:)``): the client's
/// address, or whatever else the application can tell requesters apart by (only it knows).
/// ``InMemoryPendingLoginStore`` and OIDCPostgres's `PostgresPendingLoginStore` bound each scope's
/// share, so one scope that floods them fills only that share (refused: `pending_login_store_full`);
/// ``FilePendingLoginStore`` keeps no count bound and takes the scope without using it (the default
/// implementation). Whatever the store, a deployment also needs a rate limit per client in front of
/// its login route.
public protocol PendingLoginStore: Sendable {
    /// Saves `bytes` under `state` for `expiresIn` seconds (more than 0, at most 86 400).
    /// - Throws: `pending_login_exists`, `pending_login_unreadable` for a lifetime out of range,
    ///   `pending_login_store_full` when a bounded store is full.
    func saveBytes(_ bytes: [UInt8], state: String, expiresIn: Double) async throws
    /// Saves `bytes` under `state` for `expiresIn` seconds, counted against `scope`'s share where the
    /// store bounds scopes (`nil`: no scope; the default implementation ignores `scope` and calls
    /// ``saveBytes(_:state:expiresIn:)``).
    /// - Throws: as ``saveBytes(_:state:expiresIn:)``; `pending_login_store_full` when `scope`'s share is full.
    func saveBytes(_ bytes: [UInt8], state: String, expiresIn: Double, scope: String?) async throws
    /// Takes the bytes saved under `state`, at most once.
    /// - Throws: `pending_login_not_found` (unknown, replayed or purged), `pending_login_expired`.
    func consumeBytes(state: String) async throws -> [UInt8]
}

extension PendingLoginStore {
    /// For a store that bounds no scope: `scope` is not used; saves as ``saveBytes(_:state:expiresIn:)``.
    public func saveBytes(_ bytes: [UInt8], state: String, expiresIn: Double, scope: String?) async throws {
        try await saveBytes(bytes, state: state, expiresIn: expiresIn)
    }

    /// Saves `value` (as JSON) under `state` for `expiresIn` seconds (see ``saveBytes(_:state:expiresIn:)``).
    public func save<Value: Encodable>(_ value: Value, state: String, expiresIn: Double) async throws {
        try await saveBytes(try PendingLoginCoding.encode(value), state: state, expiresIn: expiresIn)
    }

    /// Saves `value` (as JSON) under `state` for `expiresIn` seconds, counted against `scope`'s share
    /// (see ``saveBytes(_:state:expiresIn:scope:)``).
    public func save<Value: Encodable>(_ value: Value, state: String, expiresIn: Double, scope: String?) async throws {
        try await saveBytes(try PendingLoginCoding.encode(value), state: state, expiresIn: expiresIn, scope: scope)
    }

    /// Takes the value saved under `state`, decoded as `Value`, at most once (see ``consumeBytes(state:)``).
    /// - Throws: as ``consumeBytes(state:)``, and `pending_login_unreadable` when it does not decode as `Value`.
    public func consume<Value: Decodable>(state: String, as type: Value.Type = Value.self) async throws -> Value {
        try PendingLoginCoding.decode(try await consumeBytes(state: state), as: Value.self)
    }
}

/// The JSON coding and argument rules every pending-login store shares.
package enum PendingLoginCoding {
    /// The longest lifetime a store accepts, in seconds (one day).
    package static let maximumLifetime: Double = 86_400

    /// `value` as JSON bytes.
    package static func encode<Value: Encodable>(_ value: Value) throws -> [UInt8] {
        do { return Array(try JSONEncoder().encode(value)) } catch {
            throw OIDCError(.pendingLoginUnreadable, "the pending login cannot be encoded as JSON: \(type(of: error))")
        }
    }

    /// JSON `bytes` decoded as `Value`.
    package static func decode<Value: Decodable>(_ bytes: [UInt8], as type: Value.Type) throws -> Value {
        do { return try JSONDecoder().decode(Value.self, from: Data(bytes)) } catch {
            throw OIDCError(.pendingLoginUnreadable, "the pending login does not decode as \(Value.self)")
        }
    }

    /// Refuses a lifetime that is not finite, not positive or longer than a day.
    package static func checkLifetime(_ expiresIn: Double) throws {
        guard expiresIn.isFinite, expiresIn > 0, expiresIn <= maximumLifetime else {
            throw OIDCError(.pendingLoginUnreadable, "expiresIn must be between 0 and 86400 seconds")
        }
    }

    /// SHA-256 of `state` (stores key entries by it, never by `state` itself).
    /// - Throws: `pending_login_not_found` for an empty `state` or one over 2048 bytes.
    package static func stateHash(_ state: String) throws -> [UInt8] {
        guard !state.isEmpty, state.utf8.count <= 2048 else {
            throw OIDCError(.pendingLoginNotFound, "a state is 1-2048 bytes")
        }
        return DigestAlgorithm.sha256.hash(Array(state.utf8))
    }
}
