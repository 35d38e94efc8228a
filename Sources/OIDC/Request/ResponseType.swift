/// What a login's answer carries: a code, tokens from the authorization endpoint, or both.
///
/// It is the `response_type` of RFC 6749, OAuth 2.0 Multiple Response Type Encoding Practices and OpenID Connect
/// Core §3. The raw value is the registered spelling; parsing accepts the words in any order.
public enum ResponseType: String, Sendable, Hashable, Codable, CaseIterable, CustomStringConvertible {
    /// `code`: the authorization code flow.
    case code = "code"
    /// `id_token`: implicit flow, ID Token only.
    case idToken = "id_token"
    /// `id_token token`: implicit flow, ID Token and access token.
    case idTokenToken = "id_token token"
    /// `code id_token`: hybrid flow.
    case codeIDToken = "code id_token"
    /// `code token`: hybrid flow.
    case codeToken = "code token"
    /// `code id_token token`: hybrid flow.
    case codeIDTokenToken = "code id_token token"

    /// Parses a space-separated response type, words in any order (`token id_token` is `.idTokenToken`).
    public init?(rawValue: String) {
        let words = rawValue.split(separator: " ", omittingEmptySubsequences: false).map(String.init)
        guard !words.isEmpty, Set(words).count == words.count else { return nil }
        let set = Set(words)
        guard let match = Self.allCases.first(where: { Set($0.words) == set }) else { return nil }
        self = match
    }

    /// The words, in registered order.
    var words: [String] {
        switch self {
        case .code: return ["code"]
        case .idToken: return ["id_token"]
        case .idTokenToken: return ["id_token", "token"]
        case .codeIDToken: return ["code", "id_token"]
        case .codeToken: return ["code", "token"]
        case .codeIDTokenToken: return ["code", "id_token", "token"]
        }
    }

    /// Whether the authorization response carries a `code`.
    package var includesCode: Bool { words.contains("code") }
    /// Whether the authorization response carries an `id_token` (so a nonce is required and `openid` implied).
    package var includesIDToken: Bool { words.contains("id_token") }
    /// Whether the authorization response carries an `access_token`.
    package var includesAccessToken: Bool { words.contains("token") }

    /// `query` for `code`, `fragment` for every type returning a token from the authorization endpoint.
    package var defaultResponseMode: ResponseMode { self == .code ? .query : .fragment }

    /// The registered spelling.
    public var description: String { rawValue }
}
