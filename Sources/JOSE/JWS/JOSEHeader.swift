/// A JWS header (the protected header, merged with the unprotected one for
/// the JSON serializations).
public struct JOSEHeader: Sendable, Hashable {
    /// Header names registered by RFC 7515/7518/7797 that `crit` must not list.
    static let registeredNames: Set<String> = ["alg", "jku", "jwk", "kid", "x5u", "x5c", "x5t", "x5t#S256", "typ", "cty", "crit",
                                                "enc", "zip", "epk", "apu", "apv", "iv", "tag", "p2s", "p2c"]

    /// All members, as parsed.
    public let members: JSONObject

    /// `alg`, verbatim.
    public var algorithmName: String? { members["alg"]?.stringValue }
    /// `kid`
    public var keyID: String? { members["kid"]?.stringValue }
    /// `typ`
    public var type: String? { members["typ"]?.stringValue }
    /// `cty`
    public var contentType: String? { members["cty"]?.stringValue }
    /// `crit`, when present.
    public var critical: [String]? { members["crit"]?.arrayValue?.compactMap(\.stringValue) }
    /// `b64` (RFC 7797); `true` when absent.
    public var base64EncodedPayload: Bool { members["b64"]?.boolValue ?? true }
    /// Header members that name or carry other keys (`jwk`, `jku`, `x5u`, `x5c`).
    /// They are reported, never used to pick a key.
    public var embeddedKeyReferences: [String] { ["jwk", "jku", "x5u", "x5c"].filter { members[$0] != nil } }

    /// Wraps parsed members after checking the types of the registered ones.
    init(members: JSONObject) throws {
        for member in members {
            switch member.name {
            case "alg", "kid", "typ", "cty", "jku", "x5u", "x5t", "x5t#S256":
                if member.value.stringValue == nil {
                    throw JOSEError(.invalidHeader, "header member \"\(member.name)\" must be a string", member: member.name)
                }
            case "b64":
                if member.value.boolValue == nil {
                    throw JOSEError(.invalidHeader, "header member \"b64\" must be a boolean", member: "b64")
                }
            default:
                break
            }
        }
        self.members = members
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
