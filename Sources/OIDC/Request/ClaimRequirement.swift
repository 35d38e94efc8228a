import JOSE

/// How one claim is requested in the `claims` request parameter (OpenID Connect Core §5.5.1):
/// `null` (default manner), or an object with `essential`, `value`, `values` and any extension members.
public struct ClaimRequirement: Sendable, Hashable {
    /// `essential`, when present.
    public var essential: Bool?
    /// `value`: the claim must have this value.
    public var value: JSONValue?
    /// `values`: the claim should have one of these values, in order of preference.
    public var values: [JSONValue]?
    /// Members beyond the three above (e.g. `purpose` from OpenID Connect for Identity Assurance), kept in order.
    public var additionalMembers: JSONObject

    /// A requirement from its members; all absent is `null` (default manner).
    public init(
        essential: Bool? = nil, value: JSONValue? = nil, values: [JSONValue]? = nil,
        additionalMembers: JSONObject = JSONObject()
    ) {
        self.essential = essential
        self.value = value
        self.values = values
        self.additionalMembers = additionalMembers
    }

    /// `null`: requested in the default manner (a voluntary claim).
    public static let voluntary = ClaimRequirement()
    /// `{"essential": true}`.
    public static let essential = ClaimRequirement(essential: true)

    /// `{"value": v}`, or `{"essential": e, "value": v}` when `essential` is given.
    public static func value(_ value: JSONValue, essential: Bool? = nil) -> ClaimRequirement {
        ClaimRequirement(essential: essential, value: value)
    }

    /// `{"values": [...]}`, or with `essential` first when it is given.
    public static func values(_ values: [JSONValue], essential: Bool? = nil) -> ClaimRequirement {
        ClaimRequirement(essential: essential, values: values)
    }

    /// Whether this is `null` (no member at all).
    package var isVoluntary: Bool { essential == nil && value == nil && values == nil && additionalMembers.isEmpty }

    /// `null`, or an object with `essential`, `value`, `values`, then the additional members.
    package var jsonValue: JSONValue {
        if isVoluntary { return .null }
        var object = JSONObject()
        if let essential { object["essential"] = .bool(essential) }
        if let value { object["value"] = value }
        if let values { object["values"] = .array(values) }
        for member in additionalMembers where object[member.name] == nil { object[member.name] = member.value }
        return .object(object)
    }

    /// Reads a requirement from its JSON (`null` or an object).
    /// - Throws: ``OIDCError`` `.invalidClaimsRequest` naming the claim.
    package init(json: JSONValue, claim: String) throws {
        self.init()
        switch json {
        case .null:
            return
        case .object(let object):
            for member in object {
                switch member.name {
                case "essential":
                    guard case .bool(let flag) = member.value else {
                        throw OIDCError(.invalidClaimsRequest, "claim '\(claim)': essential must be a boolean, not \(member.value.typeName)")
                    }
                    essential = flag
                case "value":
                    value = member.value
                case "values":
                    guard case .array(let array) = member.value else {
                        throw OIDCError(.invalidClaimsRequest, "claim '\(claim)': values must be an array, not \(member.value.typeName)")
                    }
                    values = array
                default:
                    additionalMembers[member.name] = member.value
                }
            }
        default:
            throw OIDCError(.invalidClaimsRequest, "claim '\(claim)' must be null or an object, not \(json.typeName)")
        }
    }
}
