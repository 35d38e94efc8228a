import JOSE
import OIDC

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Logins in progress, kept server-side between the redirect to the provider and its answer: each consumed
/// exactly once, and refused once expired.
///
/// A login is saved under a key the application chooses (its browser session's identifier, say, or the
/// request's `state`) and taken back with the same key at the callback. Every implementation guarantees:
/// a second ``consumeBytes(key:)`` for the same key (a replayed callback) fails with `pending_login_not_found`;
/// an entry past its expiry is never returned (`pending_login_expired`, and it is deleted); saving under a key
/// that is already saved fails with `pending_login_exists`.
///
/// Implementations: ``InMemoryPendingLoginStore`` (one process), ``FilePendingLoginStore`` (one machine, survives
/// restarts), and OIDCPostgres's `PostgresPendingLoginStore` (many replicas).
///
/// Logins are started by unauthenticated requests, so whoever can reach the login route can fill a store. A save
/// may name a *scope*: the client's address, or whatever else the application can tell requesters apart by.
/// ``InMemoryPendingLoginStore`` and `PostgresPendingLoginStore` bound each scope's share, so one scope that floods
/// them fills only that share (`pending_login_store_full`); ``FilePendingLoginStore`` takes the scope without using
/// it. Whatever the store, a deployment also needs a rate limit per client in front of its login route.
public protocol PendingLoginStore: Sendable {
    /// Saves `bytes` under `key` for `expiresIn` seconds (more than 0, at most 86 400), counted against `scope`'s
    /// share where the store bounds scopes (`nil`: no scope).
    /// - Throws: `pending_login_exists`; `pending_login_store_full` when the store or the scope's share is full;
    ///   `pending_login_unreadable` for a lifetime out of range.
    func saveBytes(_ bytes: [UInt8], key: String, expiresIn: Double, scope: String?) async throws
    /// Takes the bytes saved under `key`, at most once.
    /// - Throws: `pending_login_not_found` (unknown, replayed or purged), `pending_login_expired`.
    func consumeBytes(key: String) async throws -> [UInt8]
}

extension PendingLoginStore {
    /// Saves `value` as JSON under `key` for `expiresIn` seconds (see ``saveBytes(_:key:expiresIn:scope:)``).
    /// - Throws: as ``saveBytes(_:key:expiresIn:scope:)``.
    public func save<Value: Encodable>(_ value: Value, key: String, expiresIn: Double, scope: String? = nil) async throws {
        try await saveBytes(try PendingLoginCoding.encode(value), key: key, expiresIn: expiresIn, scope: scope)
    }

    /// Takes the value saved under `key`, decoded as `Value`, at most once (see ``consumeBytes(key:)``).
    /// - Throws: as ``consumeBytes(key:)``, and `pending_login_unreadable` when it does not decode as `Value`.
    public func consume<Value: Decodable>(key: String, as type: Value.Type = Value.self) async throws -> Value {
        try PendingLoginCoding.decode(try await consumeBytes(key: key), as: Value.self)
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

    /// SHA-256 of `key` (stores keep entries by it, never by the key itself).
    /// - Throws: `pending_login_not_found` for an empty key or one over 2048 bytes.
    package static func keyHash(_ key: String) throws -> [UInt8] {
        guard !key.isEmpty, key.utf8.count <= 2048 else {
            throw OIDCError(.pendingLoginNotFound, "a pending-login key is 1-2048 bytes")
        }
        return DigestAlgorithm.sha256.hash(Array(key.utf8))
    }
}
