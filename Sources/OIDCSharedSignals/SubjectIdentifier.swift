import JOSE

/// A subject identifier as RFC 9493 defines it: which principal, account, device or session an event is about.
///
/// Reading one never fails on an unknown format: it is kept as ``other(format:members:)`` with its members, so an
/// application can still inspect it. A format whose required members are missing or not strings is refused.
public indirect enum SubjectIdentifier: Sendable, Hashable, CustomStringConvertible {
    /// `iss_sub`: an issuer and a subject at that issuer (the ID Token's `iss` and `sub`).
    case issuerSubject(issuer: String, subject: String)
    /// `email`
    case email(String)
    /// `phone_number` (E.164)
    case phoneNumber(String)
    /// `opaque`: an identifier the transmitter and receiver agreed on.
    case opaque(String)
    /// `account`: an `acct:` URI.
    case account(String)
    /// `did`: a decentralized identifier URL.
    case did(String)
    /// `uri`
    case uri(String)
    /// `aliases`: several identifiers of the same subject.
    case aliases([SubjectIdentifier])
    /// `complex`: a subject made of several facets (SSF 1.0 §3.2): user, session, tenant, device, application, group,
    /// org_unit; each member a simple identifier.
    case complex([String: SubjectIdentifier])
    /// A format this version does not know: its name and every member.
    case other(format: String, members: JSONObject)

    /// The identifiers this one stands for, flattened: itself, or the members of ``aliases(_:)``, and for
    /// ``complex(_:)`` its `user` member (the principal whose sessions end).
    public var principals: [SubjectIdentifier] {
        switch self {
        case .aliases(let all): return all.flatMap(\.principals)
        case .complex(let facets): return facets["user"]?.principals ?? []
        default: return [self]
        }
    }

    /// The `session` member of a ``complex(_:)`` subject, when there is one.
    public var session: SubjectIdentifier? {
        if case .complex(let facets) = self { return facets["session"] }
        return nil
    }

    /// e.g. `iss_sub(https://op, alice)`; e-mail addresses and phone numbers shown as their format only.
    public var description: String {
        switch self {
        case .issuerSubject(let issuer, let subject): return "iss_sub(\(issuer), \(subject))"
        case .email: return "email(…)"
        case .phoneNumber: return "phone_number(…)"
        case .opaque(let id): return "opaque(\(id))"
        case .account: return "account(…)"
        case .did(let url): return "did(\(url))"
        case .uri(let uri): return "uri(\(uri))"
        case .aliases(let all): return "aliases(\(all.map(\.description).joined(separator: ", ")))"
        case .complex(let facets): return "complex(\(facets.keys.sorted().map { "\($0): \(facets[$0]?.description ?? "")" }.joined(separator: ", ")))"
        case .other(let format, _): return "\(format)(…)"
        }
    }

    /// The RFC 9493 JSON form: `{"format": ..., ...}`.
    public var json: JSONObject {
        switch self {
        case .issuerSubject(let issuer, let subject): return ["format": "iss_sub", "iss": .string(issuer), "sub": .string(subject)]
        case .email(let value): return ["format": "email", "email": .string(value)]
        case .phoneNumber(let value): return ["format": "phone_number", "phone_number": .string(value)]
        case .opaque(let value): return ["format": "opaque", "id": .string(value)]
        case .account(let value): return ["format": "account", "uri": .string(value)]
        case .did(let value): return ["format": "did", "url": .string(value)]
        case .uri(let value): return ["format": "uri", "uri": .string(value)]
        case .aliases(let all): return ["format": "aliases", "identifiers": .array(all.map { .object($0.json) })]
        case .complex(let facets):
            var object: JSONObject = ["format": "complex"]
            for name in facets.keys.sorted() { if let facet = facets[name] { object[name] = .object(facet.json) } }
            return object
        case .other(_, let members): return members
        }
    }

    /// Reads an RFC 9493 identifier (a `sub_id` claim, or a `complex` member).
    /// - Throws: ``/OIDCCore/OIDCError`` `.invalidSecurityEventToken` when `format` or a required member is missing
    ///   or not a string, or an `aliases` member is itself `aliases`.
    public init(json object: JSONObject) throws {
        try self.init(json: object, depth: 0)
    }

    private init(json object: JSONObject, depth: Int) throws {
        func invalid(_ reason: String) -> OIDCError { OIDCError(.invalidSecurityEventToken, "the subject identifier \(reason)") }
        guard let format = object["format"]?.stringValue else { throw invalid("has no \"format\" string") }
        func member(_ name: String) throws -> String {
            guard let value = object[name]?.stringValue, !value.isEmpty else {
                throw invalid("of format \(format.prefix(32)) has no \"\(name)\" string")
            }
            return value
        }
        switch format {
        case "iss_sub": self = .issuerSubject(issuer: try member("iss"), subject: try member("sub"))
        case "email": self = .email(try member("email"))
        case "phone_number": self = .phoneNumber(try member("phone_number"))
        case "opaque": self = .opaque(try member("id"))
        case "account": self = .account(try member("uri"))
        case "did": self = .did(try member("url"))
        case "uri": self = .uri(try member("uri"))
        case "aliases":
            guard depth == 0, let list = object["identifiers"]?.arrayValue, !list.isEmpty else {
                throw invalid("of format aliases has no non-empty \"identifiers\" array (or is nested)")
            }
            self = .aliases(
                try list.map {
                    guard let item = $0.objectValue else { throw invalid("of format aliases lists a non-object") }
                    let alias = try SubjectIdentifier(json: item, depth: depth + 1)
                    if case .aliases = alias { throw invalid("of format aliases holds another aliases") }
                    return alias
                })
        case "complex":
            guard depth == 0 else { throw invalid("of format complex is nested") }
            var facets: [String: SubjectIdentifier] = [:]
            for entry in object where entry.name != "format" {
                guard let item = entry.value.objectValue else { throw invalid("of format complex has a member that is not an object") }
                facets[entry.name] = try SubjectIdentifier(json: item, depth: depth + 1)
            }
            guard !facets.isEmpty else { throw invalid("of format complex has no member") }
            self = .complex(facets)
        default:
            self = .other(format: format, members: object)
        }
    }
}
