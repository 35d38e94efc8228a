#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

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

    final class Entry {
        var recent: Slot
        var older: Slot?

        init(_ slot: Slot) { recent = slot }
    }

    private static let key: pthread_key_t? = {
        var key = pthread_key_t()
        #if canImport(Darwin)
        let status = pthread_key_create(&key) { Unmanaged<Entry>.fromOpaque($0).release() }
        #else
        let status = pthread_key_create(&key) { pointer in
            if let pointer { Unmanaged<Entry>.fromOpaque(pointer).release() }
        }
        #endif
        return status == 0 ? key : nil
    }()

    /// The key of `object` as ``JWK/init(embeddedJSONObject:)`` builds it: this thread's cached one when the object is
    /// identical, else a fresh one (stored on success, replacing the entry used least recently).
    static func key(for object: JSONObject) throws -> JWK {
        guard let key, isSmall(object) else { return try JWK(embeddedJSONObject: object) }
        if let stored = pthread_getspecific(key) {
            let entry = Unmanaged<Entry>.fromOpaque(stored).takeUnretainedValue()
            if entry.recent.object == object { return entry.recent.key }
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
        let built = try JWK(embeddedJSONObject: object)
        let entry = Entry(Slot(object: object, key: built))
        if pthread_setspecific(key, Unmanaged.passRetained(entry).toOpaque()) != 0 {
            Unmanaged.passUnretained(entry).release()
        }
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
