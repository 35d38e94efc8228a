/// The last two keys built on this thread from a key embedded in a token (an SD-JWT's `cnf.jwk`), each keyed by
/// the exact JSON object it was built from.
///
/// A verifier that sees one credential presented again (and a holder presents the same credential many times)
/// would otherwise build the same libcrypto key, and its contexts, on every presentation: that costs as much as a
/// signature check. A hit requires the object to be equal member for member (names, order and values), so the key is
/// the one a fresh ``JWK/init(embeddedJSONObject:)`` would give; failures are never cached. Per thread: nothing is
/// shared between threads, and the memory is bounded (objects of more than ``maxObjectBytes`` of text are never kept).
enum EmbeddedKeyCache {
    /// Objects whose names and string values add up to more than this are built every time (and never stored).
    static let maxObjectBytes = 2048

    struct Slot {
        var object: JSONObject
        var key: JWK
    }

    /// A thread's entries: the most recently used first.
    final class Entry {
        var recent: Slot?
        var older: Slot?
    }

    private static let entries = PerThread { Entry() }

    /// The key of `object` as ``JWK/init(embeddedJSONObject:)`` builds it: this thread's cached one when the object is
    /// identical, else a fresh one (stored on success, replacing the entry used least recently).
    static func key(for object: JSONObject) throws -> JWK {
        guard isSmall(object), let entry = entries.current else { return try JWK(embeddedJSONObject: object) }
        if let recent = entry.recent, recent.object == object { return recent.key }
        if let older = entry.older, older.object == object {
            entry.older = entry.recent
            entry.recent = older
            return older.key
        }
        let built = try JWK(embeddedJSONObject: object)
        entry.older = entry.recent
        entry.recent = Slot(object: object, key: built)
        return built
    }

    /// Whether the object is flat and small enough to keep: string, number, boolean and null members only.
    private static func isSmall(_ object: JSONObject) -> Bool {
        var bytes = 0
        for member in object {
            bytes += member.name.utf8.count
            switch member.value {
            case .string(let text): bytes += text.utf8.count
            case .object, .array: return false
            default: bytes += 8
            }
            if bytes > maxObjectBytes { return false }
        }
        return true
    }
}
