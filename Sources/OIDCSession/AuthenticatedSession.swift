#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import OIDC

/// Sends requests with the user's access token, and refreshes it once on a 401.
///
/// - `Authorization: Bearer` is set only on requests to the allowed origins
///   (scheme, host and port), replacing any existing header; requests elsewhere
///   go out untouched, and token-bearing requests never follow redirects.
/// - On a 401 the session refreshes once and retries once; a second 401 is
///   returned as it is. Concurrent requests failing with the same token share
///   one refresh; a request that started with an older token retries with the
///   current one without refreshing again.
/// - A refused refresh (`invalid_grant`, or no refresh token) clears the tokens
///   (and the store), emits ``SessionEvent/loggedOut(_:)`` and fails the request
///   with `logged_out`; a transport failure keeps the tokens (`refresh_failed`).
public actor AuthenticatedSession {
    private var tokens: TokenResponse?
    private let refresher: any TokenRefresher
    private let transport: any HTTPTransport
    private let allowedOrigins: Set<Origin>
    private let store: (any TokenStore)?
    private let clock: @Sendable () -> Date
    private let refreshMargin: TimeInterval?
    private var refreshTask: Task<TokenResponse, any Error>?
    private var refreshCount = 0
    private let continuation: AsyncStream<SessionEvent>.Continuation

    /// Token events: refreshes and the logged-out event.
    public nonisolated let events: AsyncStream<SessionEvent>

    /// Creates a session.
    /// - Parameters:
    ///   - proactiveRefreshMargin: refresh before sending when the access token expires within this many seconds.
    public init(tokens: TokenResponse?, refresher: any TokenRefresher, transport: any HTTPTransport, allowedOrigins: [URL],
                store: (any TokenStore)? = nil, proactiveRefreshMargin: TimeInterval? = nil,
                clock: @escaping @Sendable () -> Date = { Date() }) {
        self.tokens = tokens
        self.refresher = refresher
        self.transport = transport
        self.allowedOrigins = Set(allowedOrigins.compactMap(Origin.init))
        self.store = store
        self.refreshMargin = proactiveRefreshMargin
        self.clock = clock
        (events, continuation) = AsyncStream.makeStream(of: SessionEvent.self)
    }

    /// A session resumed from the last tokens in `store` (none if the store is empty).
    public static func resume(from store: any TokenStore, refresher: any TokenRefresher, transport: any HTTPTransport,
                              allowedOrigins: [URL], proactiveRefreshMargin: TimeInterval? = nil,
                              clock: @escaping @Sendable () -> Date = { Date() }) async throws -> AuthenticatedSession {
        AuthenticatedSession(tokens: try await store.load(), refresher: refresher, transport: transport, allowedOrigins: allowedOrigins,
                             store: store, proactiveRefreshMargin: proactiveRefreshMargin, clock: clock)
    }

    /// Replaces the tokens with ones obtained elsewhere (and saves them).
    public func inject(_ tokens: TokenResponse) async throws {
        self.tokens = tokens
        try await store?.save(tokens)
    }

    /// The current tokens (for inspection; they are secrets).
    public var currentTokens: TokenResponse? { tokens }
    /// How many refreshes this session has performed.
    public var refreshes: Int { refreshCount }

    /// Sends `request`, with the access token when its origin is allowed.
    public func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        guard let origin = Origin(request.url), allowedOrigins.contains(origin) else {
            return try await transport.send(request)
        }
        var authorized = request
        authorized.followsRedirects = false
        var token = try await accessToken()
        authorized.headers["Authorization"] = "Bearer " + token
        let first = try await transport.send(authorized)
        guard first.status == 401 else { return first }
        if let body = request.body, !body.isReplayable {
            throw OIDCError(.bodyNotReplayable, "the request got a 401 and its body is a one-shot stream that cannot be retried",
                            httpStatus: 401, transportError: .bodyNotReplayable)
        }
        token = try await freshToken(replacing: token)
        authorized.headers["Authorization"] = "Bearer " + token
        return try await transport.send(authorized)
    }

    /// The access token to use now, refreshed first when it expires within the margin.
    private func accessToken() async throws -> String {
        guard let current = tokens else { throw OIDCError(.notAuthenticated, "the session has no tokens") }
        if let margin = refreshMargin, let expiresAt = current.expiresAt, expiresAt.timeIntervalSince(clock()) <= margin,
           current.refreshToken != nil {
            return try await freshToken(replacing: current.accessToken)
        }
        return current.accessToken
    }

    /// A token newer than `stale`: the current one if someone already refreshed,
    /// else the result of the one shared refresh.
    private func freshToken(replacing stale: String) async throws -> String {
        if let current = tokens, current.accessToken != stale { return current.accessToken }
        if let running = refreshTask { return try await Self.awaitShared(running).accessToken }
        guard let current = tokens, let refreshToken = current.refreshToken else {
            let error = OIDCError(.loggedOut, "the access token was refused and there is no refresh token")
            await logOut(error)
            throw error
        }
        let refresher = self.refresher
        let task = Task { try await refresher.refreshTokens(using: refreshToken) }
        refreshTask = task
        defer { refreshTask = nil }
        do {
            var fresh = try await task.value
            if fresh.refreshToken == nil { fresh.refreshToken = refreshToken }  // RFC 6749 §6: may keep the old one
            if fresh.idToken == nil { fresh.idToken = current.idToken }
            tokens = fresh
            refreshCount += 1
            try? await store?.save(fresh)
            continuation.yield(.refreshed)
            return fresh.accessToken
        } catch {
            let mapped = Self.classify(error)
            if mapped.code == .loggedOut { await logOut(mapped) }
            throw mapped
        }
    }

    /// Waiters of someone else's refresh see the same typed error, without side effects.
    private static func awaitShared(_ task: Task<TokenResponse, any Error>) async throws -> TokenResponse {
        do { return try await task.value } catch { throw classify(error) }
    }

    /// `invalid_grant` (or an unusable grant) logs out; anything else may pass.
    static func classify(_ error: any Error) -> OIDCError {
        guard let error = error as? OIDCError else {
            return OIDCError(.refreshFailed, "the refresh failed: \(error)")
        }
        if error.code == .loggedOut { return error }
        if let oauth = error.oauthError, oauth.code == .invalidGrant || oauth.code == .unauthorizedClient || oauth.code == .invalidClient {
            return OIDCError(.loggedOut, "the refresh was refused: \(oauth)", oauthError: oauth, httpStatus: error.httpStatus)
        }
        return OIDCError(.refreshFailed, "the refresh failed (tokens kept): \(error.reason)", oauthError: error.oauthError,
                         httpStatus: error.httpStatus, transportError: error.transportError)
    }

    private func logOut(_ error: OIDCError) async {
        guard tokens != nil else { return }
        tokens = nil
        try? await store?.clear()
        continuation.yield(.loggedOut(error))
    }
}

/// Scheme, host and port (default ports made explicit), compared exactly.
struct Origin: Hashable, Sendable {
    let scheme: String
    let host: String
    let port: Int

    init?(_ url: URL) {
        guard let scheme = url.scheme?.lowercased(), let host = url.host?.lowercased() else { return nil }
        guard let port = url.port ?? (scheme == "https" ? 443 : scheme == "http" ? 80 : nil) else { return nil }
        self.scheme = scheme
        self.host = host
        self.port = port
    }
}
