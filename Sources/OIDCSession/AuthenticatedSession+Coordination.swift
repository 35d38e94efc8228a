import OIDC

extension AuthenticatedSession {
    /// One refresh of `start`'s grant, its result checked by `policy` (refreshed ID Tokens).
    ///
    /// With a ``CoordinatedTokenStore`` it runs under the store's lock, so among every
    /// session, process and replica sharing the store one refresh reaches the provider;
    /// the tokens returned are then already stored (`stored`: the session must not save
    /// them again, a late second write could overwrite a newer refresh; `storeError` when
    /// the store could not keep them, to be reported), and a refusal has
    /// already cleared the store once for everyone. Without one, it calls the refresher.
    ///
    /// - Throws: `logged_out` when the grant was refused (here, or by whoever held the
    ///   lock before); otherwise the refresher's or the policy's error, unclassified.
    static func refreshGrant(from start: TokenResponse, refresher: any TokenRefresher, policy: RefreshedIDTokenPolicy,
                             store: (any TokenStore)?) async throws -> (tokens: TokenResponse, stored: Bool, storeError: OIDCError?) {
        guard let coordinated = store as? any CoordinatedTokenStore else {
            guard let refreshToken = start.refreshToken else { throw noRefreshToken }
            return (try await policy.tokens(afterRefresh: try await refresher.refreshTokens(using: refreshToken), of: start), false, nil)
        }
        let result = try await coordinated.coordinatedRefresh(replacing: start) { stored in
            guard let refreshToken = stored.refreshToken else { return .refused(noRefreshToken) }
            do {
                return .refreshed(try await policy.tokens(afterRefresh: try await refresher.refreshTokens(using: refreshToken), of: stored))
            } catch {
                let mapped = classify(error)
                if mapped.code == .loggedOut { return .refused(mapped) }
                throw error
            }
        }
        switch result {
        case .refreshed(let tokens), .alreadyRefreshed(let tokens): return (tokens, true, nil)
        case .refreshedNotStored(let tokens, let error): return (tokens, true, error)
        case .loggedOut(let error):
            throw error ?? OIDCError(.loggedOut, "the tokens were cleared by another session (a refused refresh or a logout)")
        }
    }

    /// Whether `store` coordinates refreshes (and so clears itself on a refused one).
    static func storeIsCoordinated(_ store: (any TokenStore)?) -> Bool { store is any CoordinatedTokenStore }

    private static var noRefreshToken: OIDCError {
        OIDCError(.loggedOut, "the access token was refused and there is no refresh token")
    }
}
