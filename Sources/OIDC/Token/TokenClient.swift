#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import JOSE

/// Talks to a provider's token endpoint: the `authorization_code` and
/// `refresh_token` grants, revocation (RFC 7009) and UserInfo.
///
/// Requests never follow redirects. Every failure is an ``OIDCError``: the
/// provider's OAuth error (`oauth_error`, with ``OIDCError/oauthError``), an
/// unusable body, a 5xx, or a transport failure, each with the HTTP status and a
/// short excerpt that never contains a secret.
public struct TokenClient: Sendable {
    /// The token endpoint.
    public let tokenEndpoint: URL
    /// How the client authenticates.
    public let authentication: ClientAuthentication
    /// The HTTP transport.
    public let transport: any HTTPTransport
    /// The clock used for `expires_at` and client assertions.
    public let clock: @Sendable () -> Date
    /// Seconds before a request is abandoned.
    public var timeout: TimeInterval = 30

    /// Creates a client.
    public init(tokenEndpoint: URL, authentication: ClientAuthentication, transport: any HTTPTransport,
                clock: @escaping @Sendable () -> Date = { Date() }) {
        self.tokenEndpoint = tokenEndpoint
        self.authentication = authentication
        self.transport = transport
        self.clock = clock
    }

    static let standardParameters: Set<String> = ["grant_type", "code", "redirect_uri", "code_verifier", "refresh_token", "scope",
                                                  "client_id", "client_secret", "client_assertion", "client_assertion_type",
                                                  "token", "token_type_hint"]

    /// Exchanges an authorization code (with its PKCE verifier) for tokens.
    public func exchangeCode(_ code: String, redirectURI: URL, codeVerifier: String?,
                             additionalParameters: [(name: String, value: String)] = [], additionalHeaders: HTTPHeaders = [:]) async throws -> TokenResponse {
        var parameters: [(name: String, value: String)] = [("grant_type", "authorization_code"), ("code", code),
                                                            ("redirect_uri", redirectURI.absoluteString)]
        if let codeVerifier { parameters.append(("code_verifier", codeVerifier)) }
        return try await requestTokens(parameters, extra: additionalParameters, headers: additionalHeaders)
    }

    /// Uses a refresh token; `scope` may narrow the granted scope.
    public func refresh(_ refreshToken: String, scope: String? = nil,
                        additionalParameters: [(name: String, value: String)] = [], additionalHeaders: HTTPHeaders = [:]) async throws -> TokenResponse {
        var parameters: [(name: String, value: String)] = [("grant_type", "refresh_token"), ("refresh_token", refreshToken)]
        if let scope { parameters.append(("scope", scope)) }
        return try await requestTokens(parameters, extra: additionalParameters, headers: additionalHeaders)
    }

    /// Revokes a token at `endpoint` (RFC 7009); `hint` is `access_token` or `refresh_token`.
    public func revoke(_ token: String, hint: String? = nil, endpoint: URL) async throws {
        var parameters: [(name: String, value: String)] = [("token", token)]
        if let hint { parameters.append(("token_type_hint", hint)) }
        let response = try await post(parameters, to: endpoint, headers: [:])
        guard (200..<300).contains(response.status) else { throw EndpointResponse.error(for: response, what: "revocation") }
    }

    /// Calls UserInfo with the access token (Bearer) and returns its claims.
    public func userInfo(accessToken: String, endpoint: URL) async throws -> JSONObject {
        var headers: HTTPHeaders = ["Authorization": "Bearer " + accessToken, "Accept": "application/json"]
        headers["User-Agent"] = "swift-oidc-toolkit"
        let response = try await send(HTTPRequest(method: "GET", url: endpoint, headers: headers, timeout: timeout))
        guard response.status == 200 else { throw EndpointResponse.error(for: response, what: "userinfo") }
        return try EndpointResponse.object(from: response, what: "userinfo")
    }

    /// Checks that UserInfo's `sub` equals the ID Token's (OpenID Connect Core §5.3.2).
    public static func checkUserInfoSubject(_ userInfo: JSONObject, idTokenSubject: String?) throws {
        guard let sub = userInfo["sub"]?.stringValue, let expected = idTokenSubject, ConstantTime.equals(sub, expected) else {
            throw OIDCError(.userInfoSubjectMismatch, "UserInfo's \"sub\" does not equal the ID Token's \"sub\"")
        }
    }

    func requestTokens(_ parameters: [(name: String, value: String)], extra: [(name: String, value: String)],
                               headers: HTTPHeaders) async throws -> TokenResponse {
        for (name, _) in extra where Self.standardParameters.contains(name) {
            throw OIDCError(.invalidTokenRequest, "additional parameter \"\(name)\" would override a standard one")
        }
        let response = try await post(parameters + extra, to: tokenEndpoint, headers: headers)
        guard response.status == 200 else { throw EndpointResponse.error(for: response, what: "token") }
        let object = try EndpointResponse.object(from: response, what: "token")
        if object["error"] != nil { throw EndpointResponse.error(for: response, what: "token") }
        do {
            return try TokenResponse(json: object, receivedAt: clock())
        } catch let error as OIDCError {
            throw OIDCError(error.code, error.reason, httpStatus: response.status)
        }
    }

    func post(_ parameters: [(name: String, value: String)], to endpoint: URL, headers extra: HTTPHeaders) async throws -> HTTPResponse {
        var parameters = parameters
        var headers: HTTPHeaders = ["Content-Type": "application/x-www-form-urlencoded", "Accept": "application/json"]
        try authentication.apply(to: &parameters, headers: &headers, audience: endpoint, now: clock())
        for field in extra where field.name.lowercased() == "accept" { headers["Accept"] = field.value }  // e.g. a JWT introspection answer
        for field in extra where headers[field.name] == nil { headers.add(field.name, field.value) }
        let body = Array(FormURLEncoding.encode(parameters).utf8)
        return try await send(HTTPRequest(method: "POST", url: endpoint, headers: headers, body: .bytes(body), timeout: timeout))
    }

    func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        var request = request
        request.followsRedirects = false
        do {
            return try await transport.send(request)
        } catch let error as TransportError {
            throw OIDCError(.transport, "\(request.method) \(request.url.host ?? "?") failed: \(error)", transportError: error)
        }
    }
}
