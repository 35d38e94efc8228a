import JOSE
import OIDCCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The answer of an introspection endpoint (RFC 7662 §2.2).
public enum IntrospectionResult: Sendable, CustomStringConvertible {
    /// `active: true`, with the token's metadata.
    case active(TokenIntrospection)
    /// `active: false`: expired, revoked, unknown, or not for this client. RFC 7662 §2.2 says
    /// nothing more is told, so nothing more is kept.
    case inactive

    /// The metadata when active.
    public var activeToken: TokenIntrospection? {
        if case .active(let token) = self { return token }
        return nil
    }

    /// `active(...)` or `inactive`.
    public var description: String {
        switch self {
        case .active(let token): return "active(\(token))"
        case .inactive: return "inactive"
        }
    }
}

/// The metadata of an active token (RFC 7662 §2.2): the standard members typed, every
/// member reachable through ``members``. Holds no token. What ``TokenIntrospector`` answers for an active token
/// (``IntrospectionResult/active(_:)``, and ``ValidatedAccessToken/source`` for a token ``ResourceGuard`` accepted).
public struct TokenIntrospection: Sendable, CustomStringConvertible {
    /// The answer's `cnf` (RFC 7800; RFC 8705 §3.2, RFC 9449 §6.2): the certificate or DPoP key the token
    /// is bound to, `nil` when unbound. ``ResourceGuard/check(method:url:headers:requiredScopes:dpopNonce:clientCertificate:)``
    /// enforces it with the JWT path's rule.
    /// - Throws: ``/OIDCCore/OIDCError`` `.claimTypeMismatch` when `cnf` is not an object of non-empty strings.
    public var confirmation: TokenConfirmation? {
        get throws { try members["cnf"].map(TokenConfirmation.init(claim:)) }
    }

    /// `scope`, split on spaces.
    public let scopes: Set<String>
    /// `client_id`
    public let clientID: String?
    /// `username`
    public let username: String?
    /// `token_type`
    public let tokenType: String?
    /// `exp`
    public let expiresAt: Date?
    /// `iat`
    public let issuedAt: Date?
    /// `nbf`
    public let notBefore: Date?
    /// `sub`
    public let subject: String?
    /// `aud`, a string or an array of strings, always as an array (empty when absent).
    public let audience: [String]
    /// `iss`
    public let issuer: String?
    /// `jti`
    public let jwtID: String?
    /// Every member of the answer, standard or not.
    public let members: JSONObject

    /// Reads an answer object; `nil` for `active: false`.
    /// - Throws: ``OIDC/OIDCError`` `.invalidIntrospectionResponse` when `active` is missing or not a
    ///   boolean, or a standard member has the wrong type (naming the member); `exp`, `iat` and `nbf`
    ///   follow JOSE's NumericDate range rule.
    static func read(_ object: JSONObject) throws -> IntrospectionResult {
        guard let active = object["active"]?.boolValue else {
            throw OIDCError(.invalidIntrospectionResponse, "the introspection answer has no boolean \"active\" (RFC 7662 §2.2)")
        }
        guard active else { return .inactive }
        func string(_ name: String) throws -> String? {
            guard let value = object[name], !value.isNull else { return nil }
            guard let text = value.stringValue else {
                throw OIDCError(.invalidIntrospectionResponse, "\"\(name)\" in the introspection answer is not a string")
            }
            return text
        }
        func date(_ name: String) throws -> Date? {
            guard let value = object[name], !value.isNull else { return nil }
            guard let seconds = value.doubleValue, let date = NumericDate.date(seconds: seconds) else {
                throw OIDCError(
                    .invalidIntrospectionResponse,
                    "\"\(name)\" in the introspection answer is not a NumericDate in \(NumericDate.rangeText)")
            }
            return date
        }
        var audience: [String] = []
        if let value = object["aud"], !value.isNull {
            if let single = value.stringValue {
                audience = [single]
            } else if let array = value.arrayValue, array.allSatisfy({ $0.stringValue != nil }) {
                audience = array.compactMap(\.stringValue)
            } else {
                throw OIDCError(.invalidIntrospectionResponse, "\"aud\" in the introspection answer is neither a string nor an array of strings")
            }
        }
        return .active(
            TokenIntrospection(
                scopes: Set((try string("scope") ?? "").split(separator: " ").map(String.init)),
                clientID: try string("client_id"), username: try string("username"), tokenType: try string("token_type"),
                expiresAt: try date("exp"), issuedAt: try date("iat"), notBefore: try date("nbf"), subject: try string("sub"),
                audience: audience, issuer: try string("iss"), jwtID: try string("jti"), members: object))
    }

    /// e.g. `TokenIntrospection(sub: "alice", client_id: "app", scopes: ["read"])`.
    public var description: String {
        "TokenIntrospection(sub: \(subject.map { "\"\($0)\"" } ?? "none"), client_id: \(clientID.map { "\"\($0)\"" } ?? "none"), scopes: \(scopes.sorted()))"
    }
}
