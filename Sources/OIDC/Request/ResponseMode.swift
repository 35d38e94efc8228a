/// Where the provider puts its answer to a login: the query, the fragment, a form post, or a JARM response JWT.
///
/// OAuth 2.0 Multiple Response Type Encoding Practices §2.1, OAuth 2.0 Form Post Response Mode and JARM define them.
public enum ResponseMode: String, Sendable, Hashable, Codable, CaseIterable, CustomStringConvertible {
    /// In the redirect URL's query.
    case query = "query"
    /// In the redirect URL's fragment.
    case fragment = "fragment"
    /// In an HTML form auto-posted to the redirect URI (`application/x-www-form-urlencoded` body).
    case formPost = "form_post"

    /// JARM (JWT Secured Authorization Response Mode): a `response` JWT in the default place of the response
    /// type (the query for `code`, the fragment otherwise).
    case jwt = "jwt"
    /// JARM: a `response` JWT in the query.
    case queryJWT = "query.jwt"
    /// JARM: a `response` JWT in the fragment.
    case fragmentJWT = "fragment.jwt"
    /// JARM: a `response` JWT in an auto-posted form.
    case formPostJWT = "form_post.jwt"

    /// Whether the response is a JARM response JWT (``OIDCClient/finishLogin(_:callback:)`` verifies it).
    package var isJWT: Bool { self == .jwt || self == .queryJWT || self == .fragmentJWT || self == .formPostJWT }

    /// The registered spelling.
    public var description: String { rawValue }
}
