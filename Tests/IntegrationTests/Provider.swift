import Foundation
import OIDC
import OIDCNetworking
import TestProcesses
import Testing

/// The real OpenID provider started by `Tests/run.sh` (django-oauth-toolkit on 127.0.0.1).
enum Provider {
    static let issuer = ProcessInfo.processInfo.environment["IDP_ISSUER"]
    static var isRunning: Bool { issuer != nil }
    static let redirectURI = URL(string: "http://127.0.0.1:8765/callback")!
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    static let transport = URLSessionTransport()
    static let discovery = Discovery(transport: transport)
    static let keyCaches = JWKSetCacheRegistry(transport: transport)

    static func metadata() async throws -> ProviderMetadata {
        try await discovery.metadata(for: try #require(issuer))
    }

    static func revocationEndpoint(_ metadata: ProviderMetadata) throws -> URL {
        // django-oauth-toolkit does not list it in discovery (Tests/IdP/README.md).
        try metadata.revocationEndpoint ?? #require(URL(string: metadata.issuer + "/revoke_token/"))
    }

    /// Logs alice in through the provider's real login form (Tests/IdP/login.py)
    /// and returns the redirect back to the client.
    static func login(_ authorizationURL: URL) async throws -> URL {
        let (line, status) = try await runScript("login.py", ["--authorize-url", authorizationURL.absoluteString])
        return try #require(URL(string: line), "login.py printed no redirect URL (status \(status))")
    }

    /// The `claims` request the provider stored with `code` (its own JSON), read from its database.
    static func storedClaims(forCode code: String) async throws -> String {
        let (json, status) = try await runScript("grant_claims.py", [code])
        try #require(status == 0, "the provider has no grant for the code (grant_claims.py status \(status))")
        return json
    }

    /// Runs `<directory>/<script>` (default `Tests/IdP`) with python3: its trimmed standard output and exit status.
    static func runScript(_ script: String, _ arguments: [String], directory: String = "Tests/IdP") async throws -> (output: String, status: Int32) {
        let child = try await ChildProcess.run(
            URL(fileURLWithPath: "/usr/bin/env"),
            ["python3", repository.appendingPathComponent("\(directory)/\(script)").path] + arguments)
        return (child.output.trimmingCharacters(in: .whitespacesAndNewlines), child.status)
    }

    /// A fresh login for `clientID`: the pending authorization and the code from the redirect.
    static func authorize(clientID: String, claims: ClaimsRequest? = nil) async throws -> (PendingAuthorization, String) {
        let metadata = try await metadata()
        var request = try OAuthRequest(clientID: clientID, redirectURI: redirectURI)
        request.scopes = ["openid", "profile", "email"]
        request.claims = claims
        let pending = try request.pendingAuthorization(
            at: try #require(metadata.authorizationEndpoint), issuer: metadata.issuer,
            issuerParameterSupported: metadata.authorizationResponseIssParameterSupported == true)
        let response = try await pending.parseRedirect(try login(pending.authorizationURL))
        return (pending, try #require(response.code))
    }

    static func client(_ authentication: ClientAuthentication) async throws -> (TokenClient, ProviderMetadata) {
        let metadata = try await metadata()
        return (try TokenClient(tokenEndpoint: try #require(metadata.tokenEndpoint), authentication: authentication, transport: transport), metadata)
    }
}

/// Expects an `OIDCError` with the given code (and OAuth error code when given).
func expectOIDCError(
    _ code: OIDCError.Code, oauth: OAuthError.Code? = nil, status: Int? = nil,
    sourceLocation: SourceLocation = #_sourceLocation, _ body: () async throws -> Void
) async {
    do {
        try await body()
        Issue.record("expected \(code) but nothing was thrown", sourceLocation: sourceLocation)
    } catch let error as OIDCError {
        #expect(error.code == code, "\(error)", sourceLocation: sourceLocation)
        if let oauth { #expect(error.oauthError?.code == oauth, "\(error)", sourceLocation: sourceLocation) }
        if let status { #expect(error.httpStatus == status, "\(error)", sourceLocation: sourceLocation) }
    } catch {
        Issue.record("expected OIDCError \(code), got \(error)", sourceLocation: sourceLocation)
    }
}
