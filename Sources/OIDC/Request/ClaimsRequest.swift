import JOSE

/// Which claims the provider should return in the ID Token and from UserInfo, and how strongly.
///
/// It is the `claims` request parameter of OpenID Connect Core §5.5; set it as ``LoginRequest/claims``.
///
/// ```swift
/// request.claims = ClaimsRequest(
///     idToken: ["cmiInstanceId": .values(["42"]), "acr": .essential],
///     userinfo: ["email": .voluntary])
/// ```
///
/// Encodes as compact JSON in a fixed member order (`id_token`, then `userinfo`, each left out
/// when empty; claims in insertion order); ``parse(_:)`` reads it back.
/// `Codable` as that JSON text.
public struct ClaimsRequest: Sendable, Hashable, Codable, CustomStringConvertible {
    /// Claims for the ID Token (`id_token` member).
    public var idToken: RequestedClaims
    /// Claims for the UserInfo response (`userinfo` member).
    public var userinfo: RequestedClaims

    /// A claims request; empty targets are left out of the JSON.
    public init(idToken: RequestedClaims = [:], userinfo: RequestedClaims = [:]) {
        self.idToken = idToken
        self.userinfo = userinfo
    }

    /// Whether nothing is requested (the parameter is then not sent).
    package var isEmpty: Bool { idToken.isEmpty && userinfo.isEmpty }

    /// The JSON object: `id_token` first, then `userinfo`, each only when not empty.
    package var jsonObject: JSONObject {
        var object = JSONObject()
        if !idToken.isEmpty { object["id_token"] = .object(idToken.jsonObject) }
        if !userinfo.isEmpty { object["userinfo"] = .object(userinfo.jsonObject) }
        return object
    }

    /// The compact JSON text sent as the `claims` parameter (before percent-encoding).
    package var jsonString: String { jsonObject.jsonString() }

    /// Parses a `claims` parameter with the strict JSON parser (duplicate members are rejected).
    /// Top-level members other than `id_token` and `userinfo` are rejected too.
    /// - Throws: ``/OIDCCore/OIDCError`` `.invalidClaimsRequest` (with the JOSE error for bad JSON).
    public static func parse(_ json: String) throws -> ClaimsRequest {
        let value: JSONValue
        do {
            value = try JSONParser.parse(json, limits: JSONLimits(maxDepth: 16, maxBytes: 64 * 1024))
        } catch let error as JOSEError {
            throw OIDCError(.invalidClaimsRequest, "the claims request is not valid JSON: \(error.reason)", joseError: error)
        }
        guard case .object(let object) = value else {
            throw OIDCError(.invalidClaimsRequest, "the claims request must be a JSON object, not \(value.typeName)")
        }
        var request = ClaimsRequest()
        for member in object {
            guard member.name == "id_token" || member.name == "userinfo" else {
                throw OIDCError(.invalidClaimsRequest, "unknown member '\(member.name.prefix(64))' (only id_token and userinfo)")
            }
            guard case .object(let claims) = member.value else {
                throw OIDCError(.invalidClaimsRequest, "\(member.name) must be an object, not \(member.value.typeName)")
            }
            var requested = RequestedClaims()
            for claim in claims {
                requested[claim.name] = try ClaimRequirement(json: claim.value, claim: claim.name)
            }
            if member.name == "id_token" { request.idToken = requested } else { request.userinfo = requested }
        }
        return request
    }

    /// Decodes from the JSON text.
    public init(from decoder: any Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        self = try Self.parse(text)
    }

    /// Encodes as the JSON text.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(jsonString)
    }

    /// The compact JSON text (claims requests hold no secrets).
    public var description: String { jsonString }
}
