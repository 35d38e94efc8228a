import Foundation
import JOSE
import OIDC
import OIDCResourceServer
import OIDCSession

/// Calling another service as itself: one source per (client, scope, resource), shared.
struct ServiceCaller {
    static let api = URL(string: "https://api.example.com")!
    let source: ClientCredentialsTokenSource

    init(client: OIDCClient) {
        source = ClientCredentialsTokenSource(
            client: client.tokenClient, scope: "api.read",
            resources: [Self.api], refreshMargin: 60)
    }

    /// Cached; 100 concurrent callers -> 1 request.
    func token() async throws -> String { try await source.accessToken() }

    /// Or the same 401 handling as a user's session: one new grant on a 401, one retry.
    func session(transport: any HTTPTransport) async throws -> AuthenticatedSession {
        try await AuthenticatedSession.clientCredentials(source, configuration: .init(allowedOrigins: [Self.api], transport: transport))
    }
}

/// Any grant, token exchange (RFC 8693) and the JWT bearer grant (RFC 7523 §2.1), on the token endpoint.
func otherGrants(client: OIDCClient, userToken: String, serviceKey: JWK) async throws -> (TokenExchangeResponse, TokenResponse) {
    let exchanged = try await client.tokenClient.exchangeToken(
        TokenExchangeRequest(
            subjectToken: userToken, subjectTokenType: .accessToken, audiences: ["backend"]))
    let asUser = try await client.tokenClient.jwtBearerGrant(
        JWTBearerAssertion(
            issuer: "svc", subject: "alice", audience: client.issuer, key: serviceKey, algorithm: .es256))
    return (exchanged, asUser)
}

/// Receiving: one front door per API, RFC 9068 JWT access tokens through the issuer's key cache, as Bearer or DPoP
/// (RFC 9449 §7): one call reads Authorization and DPoP and enforces the token's cnf itself...
func receive(method: String, url: URL, headers: HeaderFields) async throws {
    let tokens = try await ResourceGuard.discover(issuer: "https://idp.example.com", audience: "https://api.example.com")
    switch await tokens.check(method: method, url: url, headers: headers, requiredScopes: ["api.read"]) {
    case .allowed(let token):
        print(token.subject ?? "-", token.clientID ?? "-", token.scopes)  // .confirmation, .proof, .claims ...
    case .refused(let refusal):
        print(refusal.status, refusal.headers, refusal.cause)  // 400/401/403 with WWW-Authenticate: Bearer / DPoP (and DPoP-Nonce), 503
    }
}

/// ...or introspection (RFC 7662), cached by the token's SHA-256 for at most its exp, the answer's cnf enforced the
/// same way (cnf.jkt only as DPoP with a proof of that key, cnf.x5t#S256 only with that client certificate).
func receiveIntrospected(
    method: String, url: URL, headers: HeaderFields, clientCertificate: ClientCertificate,
    rsAuth: ClientAuthentication
) async throws {
    var configuration = ResourceGuard.Configuration(issuer: "https://idp.example.com", audience: "https://api.example.com")
    var introspection = ResourceGuard.Introspection(authentication: rsAuth)
    introspection.cache = IntrospectionCache(maximumLifetime: 60)
    configuration.tokens = .introspection(introspection)  // or .jwtOrIntrospection(introspection)
    let tokens = try await ResourceGuard(configuration: configuration)
    switch await tokens.check(
        method: method, url: url, headers: headers, requiredScopes: ["api.read"],
        clientCertificate: clientCertificate)
    {
    case .allowed(let token):
        print(token.subject ?? "-", token.clientID ?? "-", token.scopes, token.scheme)  // token.source: .introspection(answer)
    case .refused(let refusal):
        print(refusal.status, refusal.headers)  // the same answers as for JWT access tokens
    }
}

/// Back-channel logout (Back-Channel Logout 1.0 §2.5-2.8), checked with the client's own key cache. A replayed jti is
/// refused for as long as the token could be accepted (Configuration.logoutTokens.replays: InMemoryReplayCache by
/// default, PostgresReplayCache across replicas). The answer is the HTTP response to send: 200, or 400 with the error.
func backChannelLogout(body: [UInt8], contentType: String?, client: OIDCClient) async -> TransportResponse {
    let answer = await client.backChannelLogout(body: body, contentType: contentType)
    if let token = answer.token { print(token.subject ?? "-", token.sessionID ?? "-") }  // end the sessions it names
    return answer.response
}
