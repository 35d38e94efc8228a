import Foundation
import OIDC
import OIDCSession

func finishLogin(client: OIDCClient, pendingFile: URL, query: String, tokensPath: String) async throws -> String? {
    let pending = try JSONDecoder().decode(PendingLogin.self, from: Data(contentsOf: pendingFile))
    let login = try await client.finishLogin(pending, callback: .parameters(query))  // or .url(callbackURL)
    try await FileTokenStore(path: tokensPath).save(login.tokens)
    return login.idToken.subject
}
