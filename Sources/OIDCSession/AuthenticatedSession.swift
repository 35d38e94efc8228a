import OIDC

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Sends requests with an access token to the allowed origins only, and renews the token once on a 401.
///
/// Make one with `OIDCClient.session(tokens:configuration:)` for a user, or
/// ``clientCredentials(_:configuration:)`` for the client itself; ``Configuration`` holds the
/// origins, the store, the refresh margin, the observer and the DPoP key. Concurrent 401s share one
/// renewal, a stale result never overwrites newer tokens, and only a dead grant logs the user out.
/// The rules in full are in the Session article.
public actor AuthenticatedSession {
    private var tokens: TokenResponse?
    /// Bumped by every change of `tokens`; a refresh applies its result only in the generation it started in.
    private var generation: UInt64 = 0
    private let renewal: SessionRenewal
    private let transport: any HTTPTransport
    /// Whether the transport sends the session's tokens DPoP-bound (it is a ``DPoPSessionTransport``).
    private let hasDPoPKey: Bool
    private let allowedOrigins: Set<Origin>
    private let store: (any TokenStore)?
    private let clock: @Sendable () -> Date
    private let refreshMargin: TimeInterval?
    private let refreshedIDTokens: RefreshedIDTokenPolicy
    private let refreshBackoff: TimeInterval
    /// The refresh in flight and the generation it started from.
    private var refreshTask: (task: Task<String, any Error>, generation: UInt64)?
    /// The last failed refresh and until when no new one starts.
    private var backoff: (error: OIDCError, until: Date)?
    /// The last store operation: each new one waits for it, so writes land in order.
    private var lastStoreOperation: Task<OIDCError?, Never>?
    private var refreshCount = 0
    /// Why the session was ended by ``end(because:)``: what every later request throws, until ``inject(_:)``.
    private var ended: OIDCError?
    /// Set by ``requireRefresh()``: the next request refreshes first.
    private var refreshRequired = false
    /// Receives the session's ``OIDC/OIDCEvent``s (refresh, refresh awaited, logged out); `nil`: none.
    private let observer: (any OIDCObserver)?
    private let continuation: AsyncStream<SessionEvent>.Continuation

    /// Token events: refreshes, logouts and store failures. Finishes with
    /// ``finishEvents()`` or when the session is deinitialized.
    public nonisolated let events: AsyncStream<SessionEvent>

    /// A session holding `tokens` that renews them through `refresher` (the refresh-token grant).
    ///
    /// The store of `configuration` is not read or written here: give the tokens you saved, or use
    /// ``resume(refresher:configuration:)``. With `tokens` `nil`, a request to an allowed origin fails with
    /// `not_authenticated` until ``inject(_:)`` gives the session tokens.
    /// - Throws: ``/OIDCCore/OIDCError`` `insecure_url` for an allowed origin that is neither `https` nor loopback `http`.
    public init(tokens: TokenResponse?, refresher: any TokenRefresher, configuration: Configuration) throws {
        try self.init(tokens: tokens, renewal: .refreshToken(refresher), configuration: configuration)
    }

    /// Every construction path goes through here: the origins are checked (``OIDC/SecureURLPolicy``) and the
    /// transport DPoP-binds the tokens when a DPoP key is known (``DPoPSessionTransport/forSession(transport:dpop:renewal:origins:observer:)``).
    package init(tokens: TokenResponse?, renewal: SessionRenewal, configuration: Configuration) throws {
        self.allowedOrigins = try Origin.checked(configuration.allowedOrigins)
        self.observer = configuration.observer
        self.tokens = tokens
        self.renewal = renewal
        self.transport = DPoPSessionTransport.forSession(
            transport: try configuration.transport ?? LibSSLTransport(),
            dpop: configuration.dpop, renewal: renewal,
            origins: configuration.allowedOrigins, observer: configuration.observer)
        self.hasDPoPKey = self.transport is DPoPSessionTransport
        self.store = configuration.store
        self.refreshedIDTokens = configuration.refreshedIDTokens ?? .refuseIDTokens
        self.refreshMargin = configuration.proactiveRefreshMargin
        self.refreshBackoff = configuration.refreshBackoff > 0 ? configuration.refreshBackoff : 0
        self.clock = configuration.clock ?? { Date() }
        (events, continuation) = AsyncStream.makeStream(of: SessionEvent.self)
    }

    deinit { continuation.finish() }

    /// A session resumed from the last tokens in the configuration's store (none if it is empty or absent).
    /// - Throws: the store's errors; `insecure_url` for an origin that is neither `https` nor loopback `http`.
    public static func resume(refresher: any TokenRefresher, configuration: Configuration) async throws -> AuthenticatedSession {
        _ = try Origin.checked(configuration.allowedOrigins)  // before the store is touched
        return try AuthenticatedSession(tokens: try await configuration.store?.load(), refresher: refresher, configuration: configuration)
    }

    /// Replaces the tokens with ones obtained elsewhere (a new login) and saves them.
    /// A refresh still in flight from the old tokens is then ignored.
    /// - Throws: the store's error when the save fails (the tokens are in use anyway).
    public func inject(_ tokens: TokenResponse) async throws {
        self.tokens = tokens
        generation &+= 1
        backoff = nil
        ended = nil
        refreshRequired = false
        if let error = await storeOperation({ try await $0.save(tokens) }) { throw error }
    }

    /// Finishes ``events``: a `for await` over it ends. The session keeps working
    /// and emits nothing more.
    public nonisolated func finishEvents() { continuation.finish() }

    /// The current tokens (for inspection; they are secrets).
    public var currentTokens: TokenResponse? { tokens }
    /// How many refreshes this session has applied.
    package var refreshes: Int { refreshCount }

    /// Sends `request`, with the access token when its origin is allowed.
    public func send(_ request: TransportRequest) async throws -> TransportResponse {
        guard let origin = Origin(request.url), allowedOrigins.contains(origin) else {
            return try await transport.send(request)
        }
        var authorized = request
        authorized.followsRedirects = false
        var token = try await accessToken()
        try requireDPoPKeyIfBound()
        authorized.headers["Authorization"] = "Bearer " + token
        let first = try await transport.send(authorized)
        guard first.status == 401 else { return first }
        if let body = request.body, !body.isReplayable {
            throw OIDCError(
                .bodyNotReplayable, "the request got a 401 and its body is a one-shot stream that cannot be retried",
                httpStatus: 401, transportError: .bodyNotReplayable)
        }
        token = try await freshToken(replacing: token)
        try requireDPoPKeyIfBound()
        authorized.headers["Authorization"] = "Bearer " + token
        return try await transport.send(authorized)
    }

    /// The one DPoP rule of the session: a token whose `token_type` is `DPoP` goes out only through the
    /// DPoP transport (which turns the session's `Bearer` header into `DPoP` with a proof), never as Bearer.
    /// A token of any other type than `Bearer` or `DPoP` (RFC 8693's `N_A`, which a client may accept to read) is never sent.
    private func requireDPoPKeyIfBound() throws {
        if let current = tokens, !["bearer", "dpop"].contains(current.tokenType.lowercased()) {
            throw OIDCError(
                .unsupportedTokenType,
                "the session's token has token_type \"\(current.tokenType.prefix(32))\"; a session sends only Bearer and DPoP tokens")
        }
        guard !hasDPoPKey, let current = tokens, current.tokenType.lowercased() == "dpop" else { return }
        throw OIDCError(
            .dpopKeyMissing,
            "the session's access token is DPoP-bound and the session has no DPoP key "
                + "(give its configuration a DPoP key, or a refresher with a DPoP binding); it is never sent as Bearer")
    }

    /// The access token to use now, refreshed first when it expires within the margin;
    /// the current one when that refresh fails but the token has not expired.
    private func accessToken() async throws -> String {
        guard let current = tokens else { throw ended ?? OIDCError(.notAuthenticated, "the session has no tokens") }
        if refreshRequired {
            let token = try await freshToken(replacing: current.accessToken)
            refreshRequired = false
            return token
        }
        guard let configured = refreshMargin, let expiresAt = current.expiresAt,
            expiresAt.timeIntervalSince(clock()) <= margin(configured, for: current),
            current.refreshToken != nil || !renewal.needsRefreshToken
        else { return current.accessToken }
        do {
            return try await freshToken(replacing: current.accessToken)
        } catch let error as OIDCError where error.code != .loggedOut {
            guard let latest = tokens, let expiry = latest.expiresAt, expiry > clock() else { throw error }
            return latest.accessToken
        }
    }

    /// The proactive margin for `tokens`: `configured`, but at most half their lifetime (`expires_in`), for
    /// every session: a 30 s token under a 30 s margin is reused for 15 s instead of renewed before every request.
    private func margin(_ configured: TimeInterval, for tokens: TokenResponse) -> TimeInterval {
        RefreshMargin.effective(configured, lifetime: tokens.expiresIn.map { TimeInterval($0) })
    }

    /// A token newer than `stale`: the current one if the tokens changed since,
    /// else the result of the one shared refresh.
    private func freshToken(replacing stale: String) async throws -> String {
        guard let current = tokens else { throw OIDCError(.notAuthenticated, "the session has no tokens") }
        if current.accessToken != stale { return current.accessToken }
        if let running = refreshTask {
            if running.generation == generation { return try await observer.observe(.refreshAwaited) { try await running.task.value } }
            _ = try? await running.task.value  // an older refresh: its result will be dropped; then start from the current tokens
            return try await freshToken(replacing: stale)
        }
        if let backoff, clock() < backoff.until {
            let last = backoff.error
            throw OIDCError(
                last.code, "no new refresh within \(refreshBackoff) s of a failed one; it failed with: \(last.reason)",
                oauthError: last.oauthError, httpStatus: last.httpStatus, joseError: last.joseError,
                transportError: last.transportError)
        }
        // A coordinated store decides under its lock (it may hold newer tokens).
        guard current.refreshToken != nil || !renewal.needsRefreshToken || Self.storeIsCoordinated(store) else {
            let error = OIDCError(.loggedOut, "the access token was refused and there is no refresh token", cause: .noRefreshToken)
            await logOut(error)
            throw error
        }
        let started = generation
        let task = Task { try await self.refresh(from: current, generation: started) }
        refreshTask = (task, started)
        return try await task.value
    }

    /// Runs one refresh and applies its result only if `generation` is still current.
    private func refresh(from start: TokenResponse, generation started: UInt64) async throws -> String {
        defer { refreshTask = nil }
        let fresh: TokenResponse, stored: Bool, storeError: OIDCError?
        do {
            (fresh, stored, storeError) = try await observer.observe(.refresh, grantType: renewal.grantType) {
                try await Self.refreshGrant(from: start, renewal: renewal, policy: refreshedIDTokens, store: store, observer: observer)
            }
        } catch {
            let mapped = Self.classify(error)
            guard generation == started else { return try currentAccessToken() }
            if mapped.code == .loggedOut {
                await logOut(mapped)
            } else {
                backoff = (mapped, clock().addingTimeInterval(refreshBackoff))
                continuation.yield(.refreshFailed(mapped))
            }
            throw mapped
        }
        guard generation == started else { return try currentAccessToken() }
        tokens = fresh
        generation &+= 1
        backoff = nil
        refreshCount += 1
        continuation.yield(.refreshed)
        if let error = stored ? storeError : await storeOperation({ try await $0.save(fresh) }) { continuation.yield(.storeFailed(error)) }
        return fresh.accessToken
    }

    /// The access token of the tokens that replaced a refresh's starting point.
    private func currentAccessToken() throws -> String {
        guard let current = tokens else { throw OIDCError(.notAuthenticated, "the session was logged out during the refresh") }
        return current.accessToken
    }

    /// The session's one rule for a failed refresh (see the type's documentation):
    /// - logged out (the grant is dead): `invalid_grant` at any status; an HTTP 400 or 401 from the token
    ///   endpoint, with an empty body, a body that is not an OAuth error, or an OAuth error other than one
    ///   that names the client's own configuration (glewlwyd answers a revoked refresh token with an empty 400);
    ///   an unusable grant; `refresh_token_spent`;
    /// - `refresh_rejected` (kept): an OAuth error that names the client's configuration, not the grant
    ///   (``clientSideRefusals``: `invalid_client`, `unauthorized_client`, ...), or an OAuth error at another status;
    /// - a refreshed ID Token's own error code (kept);
    /// - `refresh_failed` (kept): transport failures, timeouts, 5xx and any other status.
    static func classify(_ error: any Error) -> OIDCError {
        guard let error = error as? OIDCError else {
            return OIDCError(.refreshFailed, "the refresh failed: \(error)")
        }
        if error.code == .loggedOut { return error }
        if error.code == .refreshTokenSpent {  // the refresher's own check refused a rotated answer: the grant is gone
            return OIDCError(.loggedOut, error.reason, joseError: error.joseError, cause: .refreshTokenSpent)
        }
        let refusedGrant = error.httpStatus == 400 || error.httpStatus == 401
        if let oauth = error.oauthError {
            if oauth.code == .invalidGrant || (refusedGrant && !clientSideRefusals.contains(oauth.error)) {
                return OIDCError(.loggedOut, "the refresh was refused: \(oauth)", oauthError: oauth, httpStatus: error.httpStatus)
            }
            return OIDCError(
                .refreshRejected, "the provider refused the refresh (tokens kept): \(oauth)", oauthError: oauth,
                httpStatus: error.httpStatus)
        }
        if refusedGrant, let status = error.httpStatus {
            // No OAuth error to say otherwise: the token endpoint refused the refresh token itself.
            return OIDCError(
                .loggedOut, "the refresh was refused with HTTP \(status) and no OAuth error (\(error.code.rawValue))",
                httpStatus: status, cause: error.code)
        }
        if error.httpStatus == nil, error.transportError == nil, error.code != .refreshFailed {
            return error  // the refresh response was refused here (e.g. its ID Token): keep the specific code
        }
        return OIDCError(
            .refreshFailed, "the refresh failed (tokens kept): \(error.reason)", oauthError: error.oauthError,
            httpStatus: error.httpStatus, joseError: error.joseError, transportError: error.transportError)
    }

    /// OAuth errors (RFC 6749 §5.2, RFC 9449 §8) by which a token endpoint says the request or the client's
    /// configuration is at fault, not the grant: a refresh refused with one keeps the tokens (`refresh_rejected`),
    /// since the refresh token may still work once the client is fixed (or, for `use_dpop_nonce`, retried).
    static let clientSideRefusals: Set<String> = [
        "invalid_client", "unauthorized_client", "unsupported_grant_type", "invalid_scope",
        "use_dpop_nonce", "invalid_dpop_proof",
    ]

    /// Ends the session now, as a Shared Signals event or a back-channel logout asks: its tokens are dropped and its
    /// store cleared (a ``SessionEvent/loggedOut(_:)`` event), and every later request throws `error` (category
    /// `authenticateAgain`) without a refresh, until ``inject(_:)`` gives it new tokens.
    /// - Parameter error: what later requests throw, e.g. `OIDCError(.sessionRevoked, "…")`.
    public func end(because error: OIDCError) async {
        ended = error
        refreshRequired = false
        await logOut(error)
    }

    /// Makes the next request refresh the tokens first (new claims, a new `acr`), as a CAEP token-claims-change or
    /// assurance-level-change event asks; the refresh's answer goes through the session's usual checks.
    public func requireRefresh() {
        guard tokens != nil else { return }
        refreshRequired = true
    }

    private func logOut(_ error: OIDCError) async {
        guard tokens != nil else { return }
        tokens = nil
        generation &+= 1
        backoff = nil
        observer.recordFailure(.loggedOut, error)
        continuation.yield(.loggedOut(error))
        // A coordinated store was cleared under its lock, once for everyone: clearing it again
        // here could delete a newer login saved by another replica since.
        if !Self.storeIsCoordinated(store), let failure = await storeOperation({ try await $0.clear() }) {
            continuation.yield(.storeFailed(failure))
        }
    }

    /// Runs `operation` on the store after every earlier one (creation order is the
    /// order of the token changes); returns its error, typed.
    private func storeOperation(_ operation: @escaping @Sendable (any TokenStore) async throws -> Void) async -> OIDCError? {
        guard let store else { return nil }
        let previous = lastStoreOperation
        let task = Task<OIDCError?, Never> {
            _ = await previous?.value
            do {
                try await operation(store)
                return nil
            } catch let error as OIDCError {
                return error
            } catch {
                return OIDCError(.tokenStoreFailure, "the token store failed: \(error)")
            }
        }
        lastStoreOperation = task
        return await task.value
    }
}

/// Scheme, host and port (default ports made explicit), compared exactly.
struct Origin: Hashable, Sendable {
    /// The origins of `urls`, each first checked by ``OIDC/SecureURLPolicy`` (https; http only on loopback).
    /// - Throws: ``OIDC/OIDCError`` `.insecureURL` or `.invalidIssuerURL` naming the origin.
    static func checked(_ urls: [URL]) throws -> Set<Origin> {
        var origins = Set<Origin>()
        for url in urls {
            let what = "the allowed origin \(url.scheme?.prefix(16) ?? "")://\(url.host?.prefix(100) ?? "")"
            try SecureURLPolicy.check(url, what: what)
            guard let origin = Origin(url) else { throw OIDCError(.invalidIssuerURL, "\(what) has no usable scheme, host and port") }
            origins.insert(origin)
        }
        return origins
    }

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
