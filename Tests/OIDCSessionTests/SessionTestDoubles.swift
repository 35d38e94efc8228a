import Foundation
import JOSE
import OIDC
import OIDCSession
import Synchronization

/// A resource server that accepts exactly one access token (changeable) and
/// records the Authorization header of every request.
final class ScriptedAPI: HTTPTransport, Sendable {
    private let state = Locked<(valid: String, seen: [String?], bodies: [[UInt8]])>(("", [], []))

    init(validToken: String) { state.withLock { $0.valid = validToken } }

    func accept(_ token: String) { state.withLock { $0.valid = token } }
    var seenAuthorizations: [String?] { state.withLock { $0.seen } }
    var bodies: [[UInt8]] { state.withLock { $0.bodies } }

    func send(_ request: TransportRequest) async throws -> TransportResponse {
        await Task.yield()
        let authorization = request.headers["Authorization"]
        let ok = state.withLock { state -> Bool in
            state.seen.append(authorization)
            if case .bytes(let bytes) = request.body { state.bodies.append(bytes) }
            return authorization == "Bearer " + state.valid
        }
        return ok
            ? TransportResponse(status: 200, body: Array("ok".utf8))
            : TransportResponse(status: 401, headers: ["WWW-Authenticate": #"Bearer error="invalid_token""#])
    }
}

/// Issues AT-1, AT-2, ... and tells the API to accept the newest; counts calls.
final class CountingRefresher: TokenRefresher, Sendable {
    enum Mode: Sendable { case succeed, refuse, transportFailure }
    let api: ScriptedAPI
    let mode: Mode
    private let calls = Atomic<Int>(0)

    init(api: ScriptedAPI, mode: Mode = .succeed) {
        self.api = api
        self.mode = mode
    }

    var callCount: Int { calls.load(ordering: .sequentiallyConsistent) }

    func refreshTokens(using refreshToken: String) async throws -> TokenResponse {
        let number = calls.add(1, ordering: .sequentiallyConsistent).newValue
        try await Task.sleep(nanoseconds: 20_000_000)  // make the window for concurrent 401s real
        switch mode {
        case .refuse:
            throw OIDCError(.oauthError, "refused", oauthError: OAuthError(error: "invalid_grant"), httpStatus: 400)
        case .transportFailure:
            throw OIDCError(.transport, "down", transportError: .timedOut)
        case .succeed:
            let token = "AT-\(number + 1)"
            api.accept(token)
            return TokenResponse(accessToken: token, refreshToken: "RT-\(number + 1)")
        }
    }
}

enum Fixtures {
    static let api = URL(string: "https://api.example.com/v1/me")!
    static let start = TokenResponse(accessToken: "AT-1", refreshToken: "RT-1")
}

/// A refresher that parks every call until the test completes it: `entered` yields
/// once per call (so a test knows a refresh is in flight), `complete` answers the
/// oldest waiting call. Orders events without sleeping.
final class GatedRefresher: TokenRefresher, Sendable {
    private let waiting = Locked<[CheckedContinuation<Result<TokenResponse, OIDCError>, Never>]>([])
    private let calls = Atomic<Int>(0)
    private let enteredContinuation: AsyncStream<Void>.Continuation
    /// One element per call, when it starts waiting.
    let entered: AsyncStream<Void>

    init() { (entered, enteredContinuation) = AsyncStream.makeStream(of: Void.self) }

    var callCount: Int { calls.load(ordering: .sequentiallyConsistent) }

    func refreshTokens(using refreshToken: String) async throws -> TokenResponse {
        calls.add(1, ordering: .sequentiallyConsistent)
        let result = await withCheckedContinuation { continuation in
            waiting.withLock { $0.append(continuation) }
            enteredContinuation.yield()
        }
        return try result.get()
    }

    /// Answers the oldest waiting call.
    func complete(_ result: Result<TokenResponse, OIDCError>) {
        let continuation = waiting.withLock { $0.isEmpty ? nil : $0.removeFirst() }
        continuation?.resume(returning: result)
    }
}

/// A refresher that answers every call at once with the same result.
final class ScriptedRefresher: TokenRefresher, Sendable {
    let result: @Sendable () -> Result<TokenResponse, OIDCError>
    let calls = Atomic<Int>(0)

    init(_ result: @escaping @Sendable () -> Result<TokenResponse, OIDCError>) { self.result = result }

    var callCount: Int { calls.load(ordering: .sequentiallyConsistent) }

    func refreshTokens(using refreshToken: String) async throws -> TokenResponse {
        calls.add(1, ordering: .sequentiallyConsistent)
        return try result().get()
    }
}

/// A store whose saves and clears always fail (a full disk, a read-only folder).
struct FailingStore: TokenStore {
    func save(_ tokens: TokenResponse) async throws { throw OIDCError(.tokenStoreFailure, "disk full") }
    func load() async throws -> TokenResponse? { nil }
    func clear() async throws { throw OIDCError(.tokenStoreFailure, "disk full") }
}

/// A clock the test moves by hand.
final class ManualClock: Sendable {
    private let current = Locked<Date>(Date(timeIntervalSince1970: 1_800_000_000))
    var now: Date { current.withLock { $0 } }
    func advance(_ seconds: TimeInterval) { current.withLock { $0 = $0.addingTimeInterval(seconds) } }
    var read: @Sendable () -> Date { { [self] in self.now } }
}

extension OIDCError {
    /// An OAuth refusal as the token endpoint returns it.
    static func refused(_ code: String) -> OIDCError {
        OIDCError(.oauthError, "refused", oauthError: OAuthError(error: code), httpStatus: 400)
    }
}
