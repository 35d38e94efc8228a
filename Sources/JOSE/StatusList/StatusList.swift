/// A Token Status List (draft-ietf-oauth-status-list §4): the status of many credentials, `bits` bits each,
/// packed from the least significant bit of the first byte up.
///
/// It is read from its JSON form (`{"bits": 1, "lst": "<base64url of zlib data>"}`); the compressed list is
/// inflated with a hard bound, so a list that would inflate past `maximumBytes` is refused before it is held
/// whole. Reading a status never fails for an index inside the list, and never crashes for one outside it.
public struct StatusList: Sendable, Hashable {
    /// The default bound on the inflated list: 16 MiB, room for 16 million 8-bit or 134 million 1-bit statuses.
    public static let defaultMaximumBytes = 16 << 20

    /// One credential's status (§7): 0 valid, 1 invalid (revoked), 2 suspended; 3 and 12–15 are
    /// application-specific, the rest reserved. Every value is kept as it was read.
    public struct Status: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
        /// The entry's value, `0 ..< 2^bits`.
        public let rawValue: UInt8
        /// Wraps an entry's value.
        public init(rawValue: UInt8) { self.rawValue = rawValue }
        /// 0: the credential is valid.
        public static let valid = Status(rawValue: 0)
        /// 1: the credential is invalid: its issuer revoked it, for good.
        public static let invalid = Status(rawValue: 1)
        /// 2: the credential is suspended, for now.
        public static let suspended = Status(rawValue: 2)

        /// `valid`, `invalid`, `suspended`, or `0xNN`.
        public var description: String {
            switch rawValue {
            case 0: return "valid"
            case 1: return "invalid"
            case 2: return "suspended"
            default: return "0x" + String(rawValue, radix: 16, uppercase: true)
            }
        }

        /// Returns when the status is ``valid``, else throws the code that names it.
        /// - Throws: ``JOSEError`` `.credentialRevoked` (1), `.credentialSuspended` (2),
        ///   `.credentialStatusNotValid` (any other value, named in the reason).
        public func requireValid() throws(JOSEError) {
            switch rawValue {
            case 0: return
            case 1: throw JOSEError(.credentialRevoked, "the credential's status list entry is 1: the issuer revoked it")
            case 2: throw JOSEError(.credentialSuspended, "the credential's status list entry is 2: the issuer suspended it")
            default:
                throw JOSEError(.credentialStatusNotValid, "the credential's status list entry is \(description), not valid")
            }
        }
    }

    /// Bits per status: 1, 2, 4 or 8.
    public let bits: Int
    /// The inflated list.
    package let bytes: [UInt8]

    /// The number of statuses the list holds.
    public var count: Int { bytes.count * (8 / bits) }

    /// Reads a status list from its JSON object (`bits`, `lst`; other members such as `aggregation_uri` ignored).
    /// - Parameters:
    ///   - object: the `status_list` member of a status list token.
    ///   - maximumBytes: the bound on the inflated list (default ``defaultMaximumBytes``).
    /// - Throws: ``JOSEError`` `.invalidStatusList` (a missing or wrong `bits`, an `lst` that is not base64url or
    ///   not zlib data), `.limitExceeded` (member `lst`) when the list would inflate past `maximumBytes`.
    public init(json object: JSONObject, maximumBytes: Int = StatusList.defaultMaximumBytes) throws(JOSEError) {
        guard let bits = object["bits"]?.int64Value, [1, 2, 4, 8].contains(bits) else {
            throw JOSEError(.invalidStatusList, "the status list's bits is not 1, 2, 4 or 8", member: "bits")
        }
        guard let lst = object["lst"]?.stringValue, !lst.isEmpty else {
            throw JOSEError(.invalidStatusList, "the status list has no lst string", member: "lst")
        }
        let compressed: [UInt8]
        do { compressed = try Base64URL.decode(lst) } catch {
            throw JOSEError(.invalidStatusList, "the status list's lst is not base64url", member: "lst")
        }
        self.bits = Int(bits)
        bytes = try BoundedInflate.inflate(compressed, maximumBytes: maximumBytes, what: "lst")
    }

    /// A list over inflated bytes (for tests and issuers).
    /// - Throws: ``JOSEError`` `.invalidStatusList` when `bits` is not 1, 2, 4 or 8.
    public init(bits: Int, bytes: [UInt8]) throws(JOSEError) {
        guard [1, 2, 4, 8].contains(bits) else {
            throw JOSEError(.invalidStatusList, "the status list's bits is not 1, 2, 4 or 8", member: "bits")
        }
        self.bits = bits
        self.bytes = bytes
    }

    /// The status at `index` (§4.1: entry `index` holds bits `index * bits ..< (index + 1) * bits`, counted from
    /// the least significant bit of byte 0).
    /// - Throws: ``JOSEError`` `.invalidStatusList` when `index` is negative or past the list's end.
    public func status(at index: Int) throws(JOSEError) -> Status {
        let perByte = 8 / bits
        guard index >= 0, index / perByte < bytes.count else {
            throw JOSEError(.invalidStatusList, "index \(index) is outside the status list (\(count) entries)", member: "idx")
        }
        let byte = bytes[index / perByte]
        let shift = (index % perByte) * bits
        let mask = UInt8(truncatingIfNeeded: (1 << bits) - 1)
        return Status(rawValue: (byte >> UInt8(shift)) & mask)
    }
}
