import OIDC

extension AuthenticatedSession {
    /// One refresh of `current`'s grant. With a ``CoordinatedTokenStore`` it runs under
    /// the store's lock, so among every session, process and replica sharing the store
    /// one refresh reaches the provider; the tokens it returns are then already stored
    /// (the session must not save them again: a late second write could overwrite a
    /// newer refresh). Without one, it calls the refresher directly.
    ///
    /// - Throws: `logged_out` when the grant was refused (here or by whoever held the
    ///   lock before), `refresh_failed` for anything that may pass (tokens kept).
    static func refreshGrant(_ current: TokenResponse, refresher: any TokenRefresher,
                             store: (any TokenStore)?) async throws -> TokenResponse {
        guard let coordinated = store as? any CoordinatedTokenStore else {
            guard let refreshToken = current.refreshToken else { throw noRefreshToken }
            return completed(try await refresher.refreshTokens(using: refreshToken), previous: current)
        }
        let result = try await coordinated.coordinatedRefresh(replacing: current) { stored in
            guard let refreshToken = stored.refreshToken else { return .refused(noRefreshToken) }
            do {
                return .refreshed(completed(try await refresher.refreshTokens(using: refreshToken), previous: stored))
            } catch {
                let mapped = classify(error)
                if mapped.code == .loggedOut { return .refused(mapped) }
                throw mapped
            }
        }
        switch result {
        case .refreshed(let tokens), .alreadyRefreshed(let tokens): return tokens
        case .loggedOut(let error):
            throw error ?? OIDCError(.loggedOut, "the tokens were cleared by another session (a refused refresh or a logout)")
        }
    }

    /// Whether the store already holds what ``refreshGrant(_:refresher:store:)`` returned.
    static func storeIsCoordinated(_ store: (any TokenStore)?) -> Bool { store is any CoordinatedTokenStore }

    private static var noRefreshToken: OIDCError {
        OIDCError(.loggedOut, "the access token was refused and there is no refresh token")
    }

    /// RFC 6749 §6: a refresh response may leave out the refresh token (keep the old
    /// one) and the ID Token (keep the previous one).
    static func completed(_ fresh: TokenResponse, previous: TokenResponse) -> TokenResponse {
        var fresh = fresh
        if fresh.refreshToken == nil { fresh.refreshToken = previous.refreshToken }
        if fresh.idToken == nil { fresh.idToken = previous.idToken }
        return fresh
    }
}
