import Foundation
import OIDC
import OIDCSession

func finishLogin(
    client: OIDCClient, logins: some PendingLoginStore, session: String, query: String,
    tokensPath: String
) async throws -> String? {
    let pending = try await logins.consume(key: session, as: PendingLogin.self)  // once: a replayed callback fails
    let login = try await client.finishLogin(pending, callback: .parameters(query))  // or .url(callbackURL)
    try await FileTokenStore(path: tokensPath).save(login.tokens)
    return login.idToken.subject
}
