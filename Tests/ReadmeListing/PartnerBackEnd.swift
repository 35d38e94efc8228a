import Foundation
import OIDCSession  // the relying party (OIDC) and its shared vocabulary come with it

/// A partner back end. One client per process (discovery once, the provider's keys cached), shared by every request.
struct PartnerBackEnd {
    let client: OIDCClient
    let serviceTokens: ClientCredentialsTokenSource  // the back end's own token: cached, one request at a time
    let storage: URL  // server-side, private to this user: tokens hold secrets
    let logins: FilePendingLoginStore  // logins in progress: 0600 files, each consumed once, refused once expired

    init(secret: String, storage: URL) async throws {
        client = try await OIDCClient.discover(
            issuer: "https://idp.example.com",
            authentication: .clientSecretBasic(clientID: "my-app", secret: secret))
        serviceTokens = ClientCredentialsTokenSource(client: client.tokenClient, scope: "partner.read")
        self.storage = storage
        logins = FilePendingLoginStore(folder: storage.appendingPathComponent("pending").path)  // made 0700
    }

    /// GET /login: start, keep the pending login for the browser's session, redirect the browser.
    func login(session: UUID) async throws -> URL {
        let pending = try await client.startLogin(
            LoginRequest(
                redirectURI: URL(string: "https://app.example.com/callback")!,
                scopes: ["openid", "email"]))
        try await logins.save(pending, key: session.uuidString, expiresIn: 600)  // keyed by the browser's session
        return pending.url
    }

    /// GET /callback?code=...&state=... (any process on this machine; behind a proxy the query is all it needs).
    func callback(session: UUID, query: String) async throws -> String? {
        let login = try await client.finishLogin(
            try await logins.consume(key: session.uuidString),  // once: a replay fails
            callback: .parameters(query))  // every check, one call
        try await FileTokenStore(path: file(session, "tokens").path).save(login.tokens)
        return login.idToken.email  // typed claims: subject, email, acr, ...
    }

    /// Any later request: call an API as the user (Bearer to that origin only; refresh once on a 401).
    func callAPI(session: UUID) async throws -> [UInt8] {
        let api = URL(string: "https://api.example.com")!
        let user = try await client.session(
            configuration: .init(
                allowedOrigins: [api],
                store: FileTokenStore(path: file(session, "tokens").path)))
        return try await user.send(TransportRequest(url: api.appendingPathComponent("v1/me"))).body
    }

    /// A call as the back end itself: the client credentials grant, reused until shortly before it expires.
    func partnerToken() async throws -> String {
        try await serviceTokens.accessToken()
    }

    private func file(_ session: UUID, _ kind: String) -> URL { storage.appendingPathComponent("\(session.uuidString).\(kind)") }
}
