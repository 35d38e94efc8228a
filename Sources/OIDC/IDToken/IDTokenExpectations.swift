#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// How an ID Token was obtained, with the values its `at_hash` / `c_hash` cover.
public enum IDTokenFlow: Sendable, Hashable {
    /// From the token endpoint (authorization code flow, or a hybrid flow's second ID Token, or a refresh).
    /// `at_hash` is optional; when present and `accessToken` is given it is checked (OIDC Core §3.1.3.8).
    case tokenEndpoint(accessToken: String? = nil)
    /// From the authorization endpoint, `response_type=id_token` (no access token) or `id_token token`
    /// (`at_hash` required, OIDC Core §3.2.2.10). A nonce is required.
    case implicit(accessToken: String? = nil)
    /// From the authorization endpoint, `response_type=code id_token` (`c_hash` required) or
    /// `code id_token token` (`c_hash` and `at_hash` required; OIDC Core §3.3.2.11). A nonce is required.
    case hybrid(code: String, accessToken: String? = nil)
}

/// The nonce the authentication request carried, stated explicitly: leaving it out never skips the check.
public enum ExpectedNonce: Sendable, Hashable {
    /// This nonce was sent: the ID Token must carry exactly it (compared in constant time).
    case sent(String)
    /// No nonce was sent (e.g. the ID Token of a refresh); the token's `nonce` claim is then not compared.
    case noNonceSent

    /// `.sent` for the nonce of a request, `.noNonceSent` when the request had none.
    /// - Parameter nonce: the request's nonce.
    package init(_ nonce: Nonce?) { self = nonce.map { .sent($0.value) } ?? .noNonceSent }
}

/// What the relying party asked for in the authentication request, which the ID Token must reflect.
///
/// There is no default value: the nonce is always stated (``ExpectedNonce/noNonceSent`` when none was sent),
/// so forgetting it cannot turn the nonce check off. Build it from the request with
/// `init(request:authorizationResponse:)` or `init(request:tokenEndpointAccessToken:)`.
public struct IDTokenExpectations: Sendable {
    /// How the token was obtained (default: from the token endpoint).
    public var flow: IDTokenFlow
    /// The `nonce` sent, if any: the token must then carry exactly this value.
    public var nonce: String?
    /// The `max_age` sent, in seconds: `auth_time` is then required and must be recent enough.
    public var maxAge: TimeInterval?
    /// Whether `auth_time` was requested as an essential claim (it is then required).
    public var authTimeEssential: Bool
    /// The `acr_values` (or essential `acr` values) requested.
    public var acrValues: [String]?
    /// Whether `acr` is essential: the token must then carry one of ``acrValues``.
    public var acrEssential: Bool
    /// Claims the token must carry (present and not `null`), e.g. every claim requested as essential for the
    /// ID Token when the client requires them all (``OIDCClient/Configuration/essentialClaims``). Empty by
    /// default: OpenID Connect Core §5.5.1 lets a provider omit an essential claim it cannot give, so only
    /// `acr` and `auth_time` are enforced unless the relying party asks for more.
    public var requiredClaims: Set<String> = []

    /// Creates expectations; by default a token-endpoint token with no `max_age` or `acr`. The nonce has no default.
    public init(
        flow: IDTokenFlow = .tokenEndpoint(), nonce: ExpectedNonce, maxAge: TimeInterval? = nil,
        authTimeEssential: Bool = false, acrValues: [String]? = nil, acrEssential: Bool = false
    ) {
        self.flow = flow
        if case .sent(let value) = nonce { self.nonce = value } else { self.nonce = nil }
        self.maxAge = maxAge
        self.authTimeEssential = authTimeEssential
        self.acrValues = acrValues
        self.acrEssential = acrEssential
    }
}
