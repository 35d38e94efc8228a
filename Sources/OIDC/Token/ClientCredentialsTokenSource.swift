import JOSE

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The client's own access token from the client credentials grant (RFC 6749 §4.4), cached and renewed
/// with one request at a time, for one client, scope, resource set and audience.
///
/// - ``token()`` hands out the cached token while it is valid for more than the refresh margin
///   (60 s by default, half the token's lifetime when that is shorter, so a short-lived token is
///   still reused), and otherwise requests a new one through the ``TokenClient`` it was given.
/// - Single flight: however many callers ask while a request is running, they all wait for that
///   one request and all get its error when it fails; the next call tries again.
/// - ``invalidate(_:)`` drops a token a resource server refused, so the next call gets a new one;
///   a token already replaced is left alone. A response without `expires_in` is kept for 300 s by default.
///
/// Keep one source per client, scope, resource set and audience, and share it.
public actor ClientCredentialsTokenSource: CustomReflectable {
    /// The client that requests the tokens (its authentication and transport).
    package nonisolated let client: TokenClient
    /// `scope`, if any.
    package nonisolated let scope: String?
    /// RFC 8707 `resource` indicators.
    package nonisolated let resources: [URL]
    /// `audience`, for providers that use it instead of `resource`.
    package nonisolated let audience: String?
    /// Seconds before expiry when a new token is requested (default 60; half the token's
    /// lifetime instead when that is shorter).
    package nonisolated let refreshMargin: TimeInterval
    /// How long a token without `expires_in` is kept (default 300 s).
    package nonisolated let assumedLifetime: TimeInterval

    private var current: TokenResponse?
    private var validUntil: Date = .distantPast
    /// ``refreshMargin``, or half the current token's lifetime when that is shorter.
    private var margin: TimeInterval = 0
    private var inFlight: Task<TokenResponse, any Error>?
    /// How many token requests this source has sent (for diagnostics and tests).
    package private(set) var requestCount = 0

    /// Creates a source; nothing is requested until the first ``token()``.
    public init(
        client: TokenClient, scope: String? = nil, resources: [URL] = [], audience: String? = nil,
        refreshMargin: TimeInterval = 60, assumedLifetime: TimeInterval = 300
    ) {
        self.client = client
        self.scope = scope
        self.resources = resources
        self.audience = audience
        self.refreshMargin = max(0, refreshMargin)
        self.assumedLifetime = max(0, assumedLifetime)
    }

    /// A valid token response (cached, or the result of the one request in flight).
    /// - Throws: every ``TokenClient`` error of the client credentials grant.
    public func token() async throws -> TokenResponse {
        if let current, validUntil.timeIntervalSince(client.clock()) > margin { return current }
        if let inFlight {  // recorded as waiting for another caller's request (the client's observer)
            return try await client.observer.observe(
                .refreshAwaited, origin: OIDCEvent.origin(of: client.tokenEndpoint),
                grantType: "client_credentials"
            ) { try await inFlight.value }
        }
        let task = Task { [client, scope, resources, audience] in
            try await client.clientCredentials(scope: scope, resources: resources, audience: audience)
        }
        inFlight = task
        requestCount += 1
        defer { inFlight = nil }
        let fresh = try await task.value
        current = fresh
        let now = client.clock()
        validUntil = fresh.expiresAt ?? now.addingTimeInterval(assumedLifetime)
        margin = RefreshMargin.effective(refreshMargin, lifetime: validUntil.timeIntervalSince(now))
        return fresh
    }

    /// Only the non-secret settings: `dump` shows neither the token nor the client's credentials.
    public nonisolated var customMirror: Mirror {
        Mirror(
            self,
            children: [
                "client_id": client.authentication.clientID, "scope": scope as Any, "resources": resources,
                "audience": audience as Any, "refreshMargin": refreshMargin,
            ])
    }

    /// A new token now, whatever the cached one's expiry (after a resource server refused it):
    /// joins the request in flight when there is one, else sends one.
    public func refreshNow() async throws -> TokenResponse {
        if inFlight == nil {
            current = nil
            validUntil = .distantPast
        }
        return try await token()
    }

    /// The access token of ``token()``.
    public func accessToken() async throws -> String { try await token().accessToken }

    /// Forgets `accessToken` if it is the cached one (e.g. after a resource server refused it).
    public func invalidate(_ accessToken: String) {
        guard let current, ConstantTime.equals(current.accessToken, accessToken) else { return }
        self.current = nil
        validUntil = .distantPast
    }
}

extension OIDCClient {
    /// A cached, single-flight source of this client's own access tokens (the `client_credentials` grant
    /// with the client's authentication, DPoP binding and observer): one per scope and audience, shared by
    /// every task; renewed `refreshMargin` seconds (at most half the lifetime) before expiry.
    /// - Parameters:
    ///   - scope: the `scope` to ask for, if any.
    ///   - resources: RFC 8707 `resource` values.
    ///   - audience: an `audience` parameter (some providers' name for the API), if any.
    ///   - refreshMargin: seconds before expiry at which a new token is requested.
    public func clientCredentialsTokenSource(
        scope: String? = nil, resources: [URL] = [], audience: String? = nil,
        refreshMargin: TimeInterval = 60
    ) -> ClientCredentialsTokenSource {
        ClientCredentialsTokenSource(
            client: tokenClient, scope: scope, resources: resources, audience: audience,
            refreshMargin: refreshMargin)
    }
}
