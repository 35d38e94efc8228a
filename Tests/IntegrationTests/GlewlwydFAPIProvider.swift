import Foundation
import JOSE
import OIDC
import OIDCNetworking
import TestProcesses
import Testing

/// Records each exchange's path, status and whether the answer carried a DPoP nonce.
final class RecordingTransport: HTTPTransport, Sendable {
    struct Exchange: Sendable { var path: String; var status: Int; var nonceChallenge: Bool; var sentNonce: Bool; var challenge: String? = nil }
    let inner: any HTTPTransport
    private let log = Locked([Exchange]())
    init(_ inner: any HTTPTransport) { self.inner = inner }
    var exchanges: [Exchange] { log.withLock { $0 } }

    func send(_ request: TransportRequest) async throws -> TransportResponse {
        let response = try await inner.send(request)
        let sentNonce = (try? request.headers["DPoP"].map { try JSONParser.parseObject(try CompactJWS($0).payload, what: "proof")["nonce"] != nil }) ?? nil
        log.withLock {
            $0.append(
                Exchange(
                    path: request.url.path, status: response.status, nonceChallenge: DPoPBinding.isNonceChallenge(response),
                    sentNonce: sentNonce ?? false, challenge: response.headers["WWW-Authenticate"].map { String($0.prefix(120)) }))
        }
        return response
    }
}

/// What the FAPI tests add to ``Glewlwyd`` (the instance of `Tests/Glewlwyd/start.sh`).
extension Glewlwyd {
    static var base: String { environment["GLEWLWYD_BASE"] ?? "" }

    /// Logs alice in for a PAR URL (Tests/Glewlwyd/login.py with the scope to consent to)
    /// and returns the redirect back to the client.
    static func login(_ url: URL, scope: String) async throws -> URL {
        let (line, status) = try await runScript("login.py", ["--authorize-url", url.absoluteString, "--scope", scope])
        try #require(status == 0, "login.py exited \(status): \(line)")
        return try #require(URL(string: line))
    }

    /// alice approves (or denies) the client's pending CIBA request, or enters a device user code.
    static func user(_ arguments: [String]) async throws {
        let (line, status) = try await Provider.runScript("glewlwyd_user.py", arguments + ["--base", base], directory: "Tests/Support")
        try #require(status == 0, "glewlwyd_user.py \(arguments.first ?? "") exited \(status): \(line)")
    }

    /// alice approves (or denies) a CIBA request that `client` makes from another process. Her session
    /// is opened and the scope consented first; `client` starts only when the script says so. glewlwyd
    /// 2.7.5 on SQLite reads a new row's id back as the connection's last insert id, so her session
    /// written at the moment the client's request was written failed that request with HTTP 500
    /// (a fresh-clone CI run: `backchannel_authentication_endpoint ... (HTTP 500): server_error`).
    static func userApproving<T: Sendable>(_ arguments: [String], client: @escaping @Sendable () async throws -> T) async throws -> T {
        let script = try StartedChild(
            URL(fileURLWithPath: "/usr/bin/env"),
            ["python3", Provider.repository.appendingPathComponent("Tests/Support/glewlwyd_user.py").path]
                + arguments + ["--base", base, "--announce-session"], capturingErrors: true)
        let announced = try await script.firstLine()
        guard announced == "session open" else {
            script.stop()
            let (_, message) = await script.finish()
            Issue.record("glewlwyd_user.py did not open alice's session: \(announced) \(message)")
            throw CancellationError()
        }
        let running = Task.detached { try await client() }
        let (status, message) = await script.finish()
        #expect(status == 0, "glewlwyd_user.py \(arguments.first ?? "") exited \(status): \(message)")
        return try await running.value
    }

    /// The provider's ID Token validator for `clientID`.
    static func validator(metadata: ProviderMetadata, clientID: String) async throws -> IDTokenValidator {
        IDTokenValidator(
            configuration: IDTokenValidator.Configuration(metadata: metadata, clientID: clientID),
            keys: .cache(try await keyCaches.cache(for: try #require(metadata.jwksURI))))
    }

    /// Validates an ID Token against the provider's keys (one place for the validator's call shape).
    static func validateIDToken(_ token: String, metadata: ProviderMetadata, clientID: String, nonce: ExpectedNonce) async throws -> IDToken {
        try await validator(metadata: metadata, clientID: clientID).validate(token, expecting: IDTokenExpectations(nonce: nonce))
    }

    /// Sleeps as asked (glewlwyd answers `slow_down` to early polls), and before the
    /// `actAt`-th wait runs `action` (the user's approval): so the polls before it see
    /// `authorization_pending` and the ones after it the decision.
    static func sleeper(actAt: Int, _ action: @escaping @Sendable () async throws -> Void) -> (PollingSleeper, Locked<[Int]>) {
        let waits = Locked([Int]())
        let sleeper = PollingSleeper { seconds in
            let count = waits.withLock {
                $0.append(seconds); return $0.count
            }
            if count == actAt { try await action() }
            try await PollingSleeper.task.sleep(seconds)
        }
        return (sleeper, waits)
    }
}
