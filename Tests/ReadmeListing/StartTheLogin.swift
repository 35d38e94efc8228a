import Foundation
import OIDC

/// Returns the URL to redirect the browser to.
func startLogin(client: OIDCClient, pendingFile: URL) throws -> URL {
    let pending = try client.startLogin(redirectURI: URL(string: "https://app.example.com/callback")!,
                                        scopes: ["openid", "profile"]) { request in
        request.prompt = [.login]
        request.maxAge = 600
    }
    try JSONEncoder().encode(pending).write(to: pendingFile)   // server-side storage
    return pending.url
}
