/// How the provider returns the authorization response (OAuth 2.0 Multiple Response Type
/// Encoding Practices §2.1, OAuth 2.0 Form Post Response Mode).
public enum ResponseMode: String, Sendable, Hashable, Codable, CaseIterable, CustomStringConvertible {
    /// In the redirect URL's query.
    case query = "query"
    /// In the redirect URL's fragment.
    case fragment = "fragment"
    /// In an HTML form auto-posted to the redirect URI (`application/x-www-form-urlencoded` body).
    case formPost = "form_post"

    /// The registered spelling.
    public var description: String { rawValue }
}
