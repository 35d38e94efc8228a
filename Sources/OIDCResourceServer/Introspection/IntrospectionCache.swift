import JOSE

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Introspection answers kept for a while, keyed by `Partition` (the endpoint, the client that
/// asked, the answer policy) and the SHA-256 of the token: the token itself is never stored, and
/// one cache shared by introspectors of different providers, clients or answer policies never hands
/// one's answer to another's question (an unsigned answer fetched for a JSON client never reaches
/// an introspector that requires signed answers).
///
/// - An entry is kept no longer than `maximumLifetime` and, for an active token with
///   `exp`, no longer than that `exp`.
/// - At most `capacity` entries: expired ones are dropped first, then the oldest.
public actor IntrospectionCache {
    /// Everything besides the token that decides an introspection answer or whether it is accepted:
    /// answers are kept and found per partition, one per introspector setting.
    package struct Partition: Sendable, Hashable, CustomStringConvertible {
        /// The introspection endpoint that answered (its absolute URL).
        package let endpoint: String
        /// The client that asked: an endpoint may answer each client differently (RFC 7662 §2.2).
        package let clientID: String
        /// The form the answer had to take to be accepted.
        package let answerForm: AnswerForm

        /// The form an answer had to take to be accepted.
        package enum AnswerForm: Sendable, Hashable {
            /// Plain JSON (RFC 7662).
            case json
            /// A JWT (RFC 9701) from `issuer` for `audience`, verified; plain JSON also accepted
            /// only under ``TokenIntrospector/JWTResponse/Requirement/preferredButJSONAccepted``.
            case jwt(issuer: String, audience: String, requirement: TokenIntrospector.JWTResponse.Requirement)
        }

        /// A partition for answers of `endpoint` to `clientID` accepted in `answerForm`.
        package init(endpoint: URL, clientID: String, answerForm: AnswerForm) {
            self.endpoint = endpoint.absoluteString
            self.clientID = clientID
            self.answerForm = answerForm
        }

        /// e.g. `Partition(endpoint: https://as/introspect, client_id: rs, form: json)`.
        package var description: String {
            let form: String
            switch answerForm {
            case .json: form = "json"
            case .jwt(let issuer, let audience, let requirement): form = "jwt(iss: \(issuer), aud: \(audience), \(requirement))"
            }
            return "Partition(endpoint: \(endpoint), client_id: \(clientID), form: \(form))"
        }
    }

    struct Key: Hashable {
        let partition: Partition
        let digest: [UInt8]
        init(token: String, partition: Partition) {
            self.partition = partition
            digest = DigestAlgorithm.sha256.hash(Array(token.utf8))
        }
    }

    private struct Entry {
        let result: IntrospectionResult
        let until: Date
        let sequence: UInt64
    }

    /// The most entries kept.
    package nonisolated let capacity: Int
    /// The longest an entry is kept, in seconds.
    package nonisolated let maximumLifetime: TimeInterval
    /// Whether `active: false` answers are kept too (default `true`: a revoked token stays revoked).
    package nonisolated let cachesInactive: Bool
    /// The current time.
    package nonisolated let clock: @Sendable () -> Date

    private var entries: [Key: Entry] = [:]
    private var nextSequence: UInt64 = 0

    /// Creates a cache (default: 10 000 entries, 5 minutes).
    public init(
        capacity: Int = 10_000, maximumLifetime: TimeInterval = 300, cachesInactive: Bool = true,
        clock: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.capacity = max(1, capacity)
        self.maximumLifetime = max(0, maximumLifetime)
        self.cachesInactive = cachesInactive
        self.clock = clock
    }

    /// The number of entries (expired ones included until they are dropped).
    package var count: Int { entries.count }

    /// The cached answer for `token` in `partition`, if fresh.
    package func result(for token: String, in partition: Partition) -> IntrospectionResult? {
        let key = Key(token: token, partition: partition)
        guard let entry = entries[key] else { return nil }
        guard entry.until > clock() else {
            entries[key] = nil
            return nil
        }
        return entry.result
    }

    /// Keeps the answer `result` for `token` in `partition` (for the time the rules above allow; not at
    /// all when that is none). Store only an answer that passed `partition`'s answer form.
    package func store(_ result: IntrospectionResult, for token: String, in partition: Partition) {
        let now = clock()
        var until = now.addingTimeInterval(maximumLifetime)
        switch result {
        case .active(let token):
            if let expiresAt = token.expiresAt { until = min(until, expiresAt) }
        case .inactive:
            guard cachesInactive else { return }
        }
        guard until > now else { return }
        let key = Key(token: token, partition: partition)
        if entries[key] == nil, entries.count >= capacity { evict(now: now) }
        nextSequence &+= 1
        entries[key] = Entry(result: result, until: until, sequence: nextSequence)
    }

    /// Forgets every entry of `endpoint` for `token`, whichever client asked (e.g. after revoking it).
    public func remove(_ token: String, at endpoint: URL) {
        let digest = DigestAlgorithm.sha256.hash(Array(token.utf8))
        let endpoint = endpoint.absoluteString
        entries = entries.filter { !($0.key.digest == digest && $0.key.partition.endpoint == endpoint) }
    }

    /// Forgets the active answers `purge` selects (by `sub`, `sid` or `jti`), whatever the partition; returns how many.
    package func purge(_ purge: ResourceGuard.Purge) -> Int {
        let before = entries.count
        entries = entries.filter { _, entry in
            guard case .active(let answer) = entry.result else { return true }
            switch purge {
            case .subject(let subject): return answer.subject != subject
            case .session(let session): return answer.members["sid"] != .string(session)
            case .tokenID(let id): return answer.jwtID != id
            }
        }
        return before - entries.count
    }

    private func evict(now: Date) {
        entries = entries.filter { $0.value.until > now }
        while entries.count >= capacity, let oldest = entries.min(by: { $0.value.sequence < $1.value.sequence }) {
            entries[oldest.key] = nil
        }
    }
}
