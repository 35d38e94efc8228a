import Foundation
import JOSE
import OIDC
import OIDCNetworking
import Testing

/// The glewlwyd instance started by `Tests/run.sh` (Tests/Glewlwyd/start.sh), read from its env lines.
enum Glewlwyd {
    static let environment = ProcessInfo.processInfo.environment
    static let issuer = environment["GLEWLWYD_ISSUER"]
    static var isRunning: Bool { issuer != nil }
    static let transport = URLSessionTransport()
    static let discovery = Discovery(transport: transport)
    static let keyCaches = JWKSetCacheRegistry(transport: transport)

    static func value(_ name: String) throws -> String { try #require(environment[name], "\(name) is not set") }
    static var resource: URL { get throws { try #require(URL(string: try value("GLEWLWYD_RESOURCE"))) } }
    static var redirectURI: URL { get throws { try #require(URL(string: try value("GLEWLWYD_REDIRECT_URI"))) } }

    /// `client_secret_basic` for the env's `GLEWLWYD_<name>_CLIENT_ID` / `_CLIENT_SECRET`.
    static func authentication(_ name: String) throws -> ClientAuthentication {
        .clientSecretBasic(clientID: try value("GLEWLWYD_\(name)_CLIENT_ID"), secret: try value("GLEWLWYD_\(name)_CLIENT_SECRET"))
    }

    static func metadata() async throws -> ProviderMetadata { try await discovery.metadata(for: try #require(issuer)) }

    static func client(_ name: String, transport: any HTTPTransport = Glewlwyd.transport) async throws -> TokenClient {
        try TokenClient(tokenEndpoint: try #require(try await metadata().tokenEndpoint), authentication: try authentication(name), transport: transport)
    }

    /// Runs `Tests/Glewlwyd/<script>` with python3: its trimmed standard output and exit status.
    static func runScript(_ script: String, _ arguments: [String]) async throws -> (output: String, status: Int32) {
        try await Provider.runScript(script, arguments, directory: "Tests/Glewlwyd")
    }

    /// alice's login for the `SECRET` client (code flow with PKCE and nonce, the resource
    /// indicator on both requests): the pending authorization and the tokens.
    static func login(scopes: [String] = ["openid", "api.read"]) async throws -> (PendingAuthorization, TokenResponse) {
        let metadata = try await metadata()
        let clientID = try value("GLEWLWYD_SECRET_CLIENT_ID")
        var request = try OAuthRequest(clientID: clientID, redirectURI: try redirectURI)
        request.scopes = scopes
        request.resources = [try resource]
        let pending = try request.pendingAuthorization(
            at: try #require(metadata.authorizationEndpoint), issuer: metadata.issuer,
            issuerParameterSupported: true)
        let (line, status) = try await runScript("login.py", ["--authorize-url", pending.authorizationURL.absoluteString])
        let redirect = try #require(URL(string: line), "login.py printed no redirect URL (status \(status))")
        let code = try #require(try pending.parseRedirect(redirect).code)
        let tokens = try await client("SECRET").exchangeCode(
            code, redirectURI: try redirectURI, codeVerifier: pending.codeVerifier?.value,
            resources: [try resource])
        return (pending, tokens)
    }
}

/// Counts the requests that go to the token endpoint, and passes everything on.
final class CountingTransport: HTTPTransport, Sendable {
    let inner: any HTTPTransport
    private let counts = Locked<[String: Int]>([:])
    init(_ inner: any HTTPTransport) { self.inner = inner }
    func count(path suffix: String) -> Int { counts.withLock { $0.filter { $0.key.hasSuffix(suffix) }.values.reduce(0, +) } }
    func send(_ request: TransportRequest) async throws -> TransportResponse {
        counts.withLock { $0[request.url.path, default: 0] += 1 }
        return try await inner.send(request)
    }
}
