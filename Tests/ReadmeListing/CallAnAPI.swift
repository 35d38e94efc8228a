import Foundation
import OIDC
import OIDCSession

/// One session per user, on the client of the login (it is the refresher: a refreshed ID Token is validated
/// and checked against the previous one, OpenID Connect Core §12.2).
func callAPI(client: OIDCClient, login: LoginResult?) async throws -> TransportResponse {
    let api = URL(string: "https://api.example.com")!
    let session = try await client.session(
        tokens: login?.tokens,  // nil: resume from the store
        configuration: .init(
            allowedOrigins: [api],
            store: FileTokenStore(path: "tokens.json")))  // 0600, atomic writes
    let events = session.events  // ends on session.finishEvents() or when the session goes away
    Task { for await event in events { print(event) } }  // "tokens refreshed", "logged out: invalid_grant"
    return try await session.send(TransportRequest(method: .get, url: api.appendingPathComponent("v1/me")))
}
