/// A JWS header (the protected header, merged with the unprotected one for
/// the JSON serializations).
public struct JOSEHeader: Sendable, Hashable {
    /// Header names registered by RFC 7515/7518/7797 that `crit` must not list.
    static let registeredNames: Set<String> = [
        "alg", "jku", "jwk", "kid", "x5u", "x5c", "x5t", "x5t#S256", "typ", "cty", "crit",
        "enc", "zip", "epk", "apu", "apv", "iv", "tag", "p2s", "p2c",
    ]

    /// The parsed header, shared by copies: a copy of a header costs one reference count, however
    /// many members it has (a header travels with every verified token).
    private final class Storage: Sendable {
        let members: JSONObject
        let algorithmName: String?
        let signatureAlgorithm: JWSAlgorithm?
        let keyID: String?
        let type: String?
        let hasCritical: Bool
        let b64: Bool?

        init(members: JSONObject, algorithmName: String?, keyID: String?, type: String?, hasCritical: Bool, b64: Bool?) {
            self.members = members
            self.algorithmName = algorithmName
            signatureAlgorithm = algorithmName.flatMap(JWSAlgorithm.named)
            self.keyID = keyID
            self.type = type
            self.hasCritical = hasCritical
            self.b64 = b64
        }
    }

    private let storage: Storage

    /// All members, as parsed.
    public var members: JSONObject { storage.members }

    /// `alg`, verbatim.
    public var algorithmName: String? { storage.algorithmName }
    /// `kid`
    public var keyID: String? { storage.keyID }
    /// `alg` as a JWS algorithm this package implements, recognised once when the header was read;
    /// `nil` when `alg` is absent or names anything else (then ``JWSAlgorithm/init(headerValue:)`` says why).
    package var signatureAlgorithm: JWSAlgorithm? { storage.signatureAlgorithm }
    /// `typ`
    public var type: String? { storage.type }
    /// `cty`
    public var contentType: String? { members["cty"]?.stringValue }
    /// `crit`, when present.
    public var critical: [String]? { members["crit"]?.arrayValue?.compactMap(\.stringValue) }
    /// `b64` (RFC 7797); `true` when absent.
    public var base64EncodedPayload: Bool { b64 ?? true }
    /// Header members that name or carry other keys (`jwk`, `jku`, `x5u`, `x5c`).
    /// They are reported, never used to pick a key.
    public var embeddedKeyReferences: [String] { ["jwk", "jku", "x5u", "x5c"].filter { members[$0] != nil } }

    /// Whether a `crit` member is present (noted while the members are checked,
    /// so that verification does not search for it by name).
    var hasCritical: Bool { storage.hasCritical }
    /// The `b64` member, when present.
    var b64: Bool? { storage.b64 }

    /// Two headers are equal when their members are (every other property is read from them).
    public static func == (lhs: JOSEHeader, rhs: JOSEHeader) -> Bool {
        lhs.storage === rhs.storage || lhs.members == rhs.members
    }

    /// Hashes the members (every other property is read from them).
    public func hash(into hasher: inout Hasher) {
        hasher.combine(members)
    }

    /// The same header behind a reference of its own: copies of the result never touch the reference count that
    /// copies of `self` share (a verified token kept for one thread; see `VerifiedTokenStore`'s per-thread front).
    package func detached() -> JOSEHeader {
        JOSEHeader(
            storage: Storage(
                members: storage.members, algorithmName: storage.algorithmName, keyID: storage.keyID, type: storage.type,
                hasCritical: storage.hasCritical, b64: storage.b64))
    }

    private init(storage: Storage) { self.storage = storage }

    /// Wraps parsed members after checking the types of the registered ones.
    init(members: JSONObject) throws {
        var algorithmName: String?, keyID: String?, type: String?, hasCritical = false, b64: Bool?
        for member in members {
            guard let name = RegisteredHeader(member.name) else { continue }
            switch name {
            case .b64:
                guard let value = member.value.boolValue else {
                    throw JOSEError(.invalidHeader, "header member \"b64\" must be a boolean", member: "b64")
                }
                b64 = value
            case .crit:
                hasCritical = true
            case .alg, .kid, .typ, .stringValued:
                guard let value = member.value.stringValue else {
                    throw JOSEError(.invalidHeader, "header member \"\(member.name)\" must be a string", member: member.name)
                }
                if name == .alg { algorithmName = value }
                if name == .kid { keyID = value }
                if name == .typ { type = value }
            }
        }
        storage = Storage(members: members, algorithmName: algorithmName, keyID: keyID, type: type, hasCritical: hasCritical, b64: b64)
    }

    /// Checks `crit` (RFC 7515 §4.1.11): a non-empty array of distinct strings,
    /// none registered, each present in `protected`, each understood.
    func checkCritical(protected: JSONObject, understood: Set<String>) throws {
        guard let value = protected["crit"] else {
            if members["crit"] != nil {
                throw JOSEError(.invalidHeader, "\"crit\" must be in the protected header", member: "crit")
            }
            return
        }
        guard let array = value.arrayValue, !array.isEmpty else {
            throw JOSEError(.invalidHeader, "\"crit\" must be a non-empty array", member: "crit")
        }
        var seen: Set<String> = []
        for element in array {
            guard let name = element.stringValue, seen.insert(name).inserted else {
                throw JOSEError(.invalidHeader, "\"crit\" must hold distinct strings", member: "crit")
            }
            if Self.registeredNames.contains(name) {
                throw JOSEError(.invalidHeader, "\"crit\" lists the registered header \"\(name)\"", member: "crit")
            }
            guard protected[name] != nil else {
                throw JOSEError(.invalidHeader, "\"crit\" lists \"\(name.jsonSafePrefix)\", which the protected header lacks", member: "crit")
            }
            guard understood.contains(name) else {
                throw JOSEError(.unsupportedCriticalHeader, "critical header extension \"\(name.jsonSafePrefix)\" is not understood", member: name)
            }
        }
    }
}

/// The registered header names the header checks look at, recognised by their
/// UTF-8 bytes packed into one integer (a string `switch` compares the name
/// with each candidate in turn, on every token).
enum RegisteredHeader: Equatable {
    case alg, kid, typ, b64, crit
    /// `cty`, `jku`, `x5u`, `x5t`, `x5t#S256`: must be strings.
    case stringValued

    init?(_ name: String) {
        guard let packed = PackedName(name) else { return nil }
        switch (packed.count, packed.bytes) {
        case (3, 0x61_6C_67): self = .alg  // alg
        case (3, 0x6B_69_64): self = .kid  // kid
        case (3, 0x62_36_34): self = .b64  // b64
        case (4, 0x63_72_69_74): self = .crit  // crit
        case (3, 0x74_79_70): self = .typ  // typ
        case (3, 0x63_74_79), (3, 0x6A_6B_75), (3, 0x78_35_75), (3, 0x78_35_74),
            (8, 0x78_35_74_23_53_32_35_36):  // cty jku x5u x5t x5t#S256
            self = .stringValued
        default: return nil
        }
    }
}
