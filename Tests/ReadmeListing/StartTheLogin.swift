import Foundation
import OIDC
import OIDCSession

/// Returns the URL to redirect the browser to; the pending login waits server-side under the browser's session.
func startLogin(client: OIDCClient, logins: some PendingLoginStore, session: String) async throws -> URL {
    var request = LoginRequest(redirectURI: URL(string: "https://app.example.com/callback")!, scopes: ["openid", "profile"])
    request.prompt = [.login]
    request.maxAge = 600
    let pending = try await client.startLogin(request)
    try await logins.save(pending, key: session, expiresIn: 600)  // e.g. FilePendingLoginStore: 0600 files
    return pending.url
}
