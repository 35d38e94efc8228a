import Foundation
import JOSE
import OIDC
import OIDCNetworking
import OIDCSession
import TestProcesses
import Testing

/// A second provider instance whose access tokens live one second, started
/// and stopped (by its PID file) by the test.
final class ShortLivedProvider {
    let port: Int
    let issuer: String
    private let stopped = Locked(false)

    /// The default port: the one after `IDP_PORT` (each developer's own range), else 9410.
    static let defaultPort = ProcessInfo.processInfo.environment["IDP_PORT"].flatMap { Int($0) }.map { $0 + 1 } ?? 9410

    /// Starts the instance on `port` (Tests/IdP/start.sh) and waits, off Swift's cooperative pool, until it serves.
    init(port: Int = ShortLivedProvider.defaultPort, environment extra: [String: String] = ["IDP_ACCESS_TOKEN_SECONDS": "1"]) async throws {
        self.port = port
        var environment = ProcessInfo.processInfo.environment
        for (name, value) in extra { environment[name] = value }
        let script = Provider.repository.appendingPathComponent("Tests/IdP/start.sh").path
        let started = try await offCooperativePool { [environment] () throws -> (status: Int32, text: String) in
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = ["bash", script, "\(port)"]
            process.environment = environment
            // A file, not a pipe: the server start.sh leaves running inherits the handle,
            // so a pipe would never reach end-of-file.
            let outputPath = FileManager.default.temporaryDirectory.appendingPathComponent("idp-\(port)-\(getpid()).out")
            _ = FileManager.default.createFile(atPath: outputPath.path, contents: nil)
            defer { try? FileManager.default.removeItem(at: outputPath) }
            process.standardOutput = try FileHandle(forWritingTo: outputPath)
            process.standardError = FileHandle.nullDevice
            try process.run()
            // Reap the script directly: Foundation's waitUntilExit can miss the exit of a
            // child whose own child (the server) lives on, leaving a zombie and a hang.
            var status: Int32 = 0
            while waitpid(process.processIdentifier, &status, 0) < 0, errno == EINTR {}  // off pool: inside offCooperativePool
            return (status, (try? String(contentsOf: outputPath, encoding: .utf8)) ?? "")
        }
        guard (started.status >> 8) & 0xFF == 0,
            let line = started.text.split(separator: "\n").first(where: { $0.hasPrefix("IDP_ISSUER=") })
        else {
            throw CLIError("the short-lived provider did not start")
        }
        issuer = String(line.dropFirst("IDP_ISSUER=".count))
    }

    /// Stops the instance (Tests/IdP/stop.sh), waiting off Swift's cooperative pool until it has.
    func stop() async {
        guard
            !stopped.withLock({
                let was = $0; $0 = true; return was
            })
        else { return }
        _ = try? await offCooperativePool { [port] in Self.runStopScript(port: port) }
    }

    /// A test that ended early (a thrown error) never called ``stop()``: stopped here, blocking.
    deinit {
        if !stopped.withLock({ $0 }) { Self.runStopScript(port: port) }
    }

    private static func runStopScript(port: Int) {
        let stop = Process()
        stop.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        stop.arguments = ["bash", Provider.repository.appendingPathComponent("Tests/IdP/stop.sh").path, "\(port)"]
        stop.standardOutput = FileHandle.nullDevice
        guard (try? stop.run()) != nil else { return }
        var status: Int32 = 0
        while waitpid(stop.processIdentifier, &status, 0) < 0, errno == EINTR {}  // off pool: stop() runs it there; deinit only after a test that threw
    }
}

struct CLIError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

extension RealProviderTests {
    @Suite("AuthenticatedSession against the real provider", .serialized)
    struct Session {
        @Test("userinfo → access token expires → 401 → one real refresh → retry succeeds → refresh token revoked → logged out")
        func refreshAndLogout() async throws {
            let provider = try await ShortLivedProvider()
            let transport = URLSessionTransport()
            let metadata = try await Discovery(transport: transport).metadata(for: provider.issuer)
            var request = try OAuthRequest(clientID: "client-basic", redirectURI: Provider.redirectURI)
            request.scopes = ["openid", "email"]
            let pending = try request.pendingAuthorization(
                at: try #require(metadata.authorizationEndpoint), issuer: metadata.issuer,
                issuerParameterSupported: metadata.authorizationResponseIssParameterSupported == true)
            let code = try await #require(try pending.parseRedirect(try Provider.login(pending.authorizationURL)).code)
            let client = try TokenClient(
                tokenEndpoint: try #require(metadata.tokenEndpoint),
                authentication: .clientSecretBasic(clientID: "client-basic", secret: "secret-basic"), transport: transport)
            let tokens = try await client.exchangeCode(code, redirectURI: Provider.redirectURI, codeVerifier: pending.codeVerifier?.value)
            #expect(tokens.expiresIn == 1)

            let userinfo = try #require(metadata.userinfoEndpoint)
            let store = InMemoryTokenStore()
            // The provider returns an ID Token with every refresh: the session validates it and checks it against the first.
            let validator = try await IDTokenValidator.discover(
                issuer: metadata.issuer, clientID: "client-basic",
                discovery: Discovery(transport: transport),
                keyCaches: JWKSetCacheRegistry(transport: transport))
            let session = try AuthenticatedSession(
                tokens: tokens, refresher: client,
                configuration: .init(
                    allowedOrigins: [userinfo], transport: transport, store: store,
                    refreshedIDTokens: .validate(with: validator), proactiveRefreshMargin: nil))
            // On a loaded machine more than the token's one second may pass before this first call: then
            // it already refreshes once. The checks below count refreshes from here, whatever happened.
            #expect(try await session.send(TransportRequest(url: userinfo)).status == 200)
            let refreshesBefore = await session.refreshes

            try await Task.sleep(nanoseconds: 2_500_000_000)  // at least: let the one-second access token expire
            let afterExpiry = try await session.send(TransportRequest(url: userinfo))
            #expect(afterExpiry.status == 200)
            #expect(await session.refreshes == refreshesBefore + 1)
            #expect(await store.load()?.accessToken != tokens.accessToken)
            let refreshedIDToken = try #require(await session.currentTokens?.idToken)
            #expect(refreshedIDToken != tokens.idToken)

            let current = try #require(await session.currentTokens)
            let revocation = try metadata.revocationEndpoint ?? #require(URL(string: metadata.issuer + "/revoke_token/"))
            try await client.revoke(try #require(current.refreshToken), hint: "refresh_token", endpoint: revocation)
            try await Task.sleep(nanoseconds: 1_500_000_000)
            var events = session.events.makeAsyncIterator()
            #expect(await events.next().map { if case .refreshed = $0 { true } else { false } } == true)
            await #expect { try await session.send(TransportRequest(url: userinfo)) } throws: { ($0 as? OIDCError)?.code == .loggedOut }
            var last = await events.next()
            // Every refresh so far (one more if the first call came after the expiry) precedes the logout.
            for _ in 0..<refreshesBefore { if case .refreshed = last { last = await events.next() } }
            await provider.stop()
            guard case .loggedOut(let error) = last else { Issue.record("expected the logged-out event, got \(String(describing: last))"); return }
            #expect(error.oauthError?.code == .invalidGrant)
            #expect(await store.load() == nil)
        }

        @Test("a refresh refused with invalid_client (a wrong client secret) keeps the tokens; the kept refresh token still works")
        func invalidClientKeepsTokens() async throws {
            let (pending, code) = try await Provider.authorize(clientID: "client-basic")
            let (client, metadata) = try await Provider.client(.clientSecretBasic(clientID: "client-basic", secret: "secret-basic"))
            let tokens = try await client.exchangeCode(code, redirectURI: Provider.redirectURI, codeVerifier: pending.codeVerifier?.value)
            let (misconfigured, _) = try await Provider.client(.clientSecretBasic(clientID: "client-basic", secret: "not-the-secret"))
            let userinfo = try #require(metadata.userinfoEndpoint)
            var stale = tokens
            stale.accessToken = "an-access-token-the-provider-refuses"
            let store = InMemoryTokenStore(stale)
            let session = try AuthenticatedSession(
                tokens: stale, refresher: misconfigured,
                configuration: .init(
                    allowedOrigins: [userinfo], transport: Provider.transport, store: store,
                    refreshedIDTokens: .discardIDTokens, proactiveRefreshMargin: nil))
            await expectOIDCError(.refreshRejected, oauth: .invalidClient) { _ = try await session.send(TransportRequest(url: userinfo)) }
            #expect(await session.currentTokens?.refreshToken == tokens.refreshToken)
            #expect(await store.load()?.refreshToken == tokens.refreshToken)
            let refreshed = try await client.refresh(try #require(tokens.refreshToken))
            #expect(!refreshed.accessToken.isEmpty)
        }
    }
}
