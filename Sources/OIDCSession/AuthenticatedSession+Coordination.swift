import JOSE
import OIDC

extension AuthenticatedSession {
    /// One renewal of `start`'s grant, its result checked by `policy` (refreshed ID Tokens).
    ///
    /// With a ``CoordinatedTokenStore`` it runs under the store's lock or lease, so among every
    /// session, process and replica sharing the store one refresh reaches the provider;
    /// the tokens returned are then already stored (`stored`: the session must not save
    /// them again, a late second write could overwrite a newer refresh; `storeError` when
    /// the store could not keep them, to be reported), and a refusal has
    /// already cleared the store once for everyone. Without one, it renews directly.
    ///
    /// - Throws: `logged_out` when the grant was refused (here, or by whoever held the
    ///   lock before), `refresh_token_spent` when it is spent (``checkedRefresh(of:renewal:policy:)``);
    ///   otherwise the refresher's or the policy's error, unclassified, or the store's own typed error
    ///   (e.g. `refresh_wait_timeout` when another replica's refresh outlasted this caller's deadline).
    static func refreshGrant(
        from start: TokenResponse, renewal: SessionRenewal, policy: RefreshedIDTokenPolicy,
        store: (any TokenStore)?,
        observer: (any OIDCObserver)? = nil
    ) async throws -> (tokens: TokenResponse, stored: Bool, storeError: OIDCError?) {
        guard let coordinated = store as? any CoordinatedTokenStore else {
            return (try await checkedRefresh(of: start, renewal: renewal, policy: policy), false, nil)
        }
        let result = try await coordinated.coordinatedRefresh(replacing: start) { stored in
            do {
                return .refreshed(try await checkedRefresh(of: stored, renewal: renewal, policy: policy))
            } catch {
                let mapped = classify(error)
                if mapped.code == .loggedOut { return .refused(mapped) }
                throw error
            }
        }
        if case .alreadyRefreshed = result { observer.record(.refreshAwaited, .success) }  // another session or replica refreshed
        switch result {
        case .refreshed(let tokens), .alreadyRefreshed(let tokens): return (tokens, true, nil)
        case .refreshedNotStored(let tokens, let error): return (tokens, true, error)
        case .loggedOut(let error):
            throw error
                ?? OIDCError(
                    .loggedOut, "the tokens were cleared by another session (a refused refresh or a logout)",
                    cause: .clearedByAnotherSession)
        }
    }

    /// New tokens for `previous`, checked by `policy`: the one step of every renewal path (plain and coordinated).
    ///
    /// A client-credentials renewal asks the source for a new grant; a refresh token the provider should not have
    /// issued is dropped, so a client-credentials session never holds or stores one. A refresh-token renewal sends
    /// the refresh token of `previous` (`logged_out` with cause `no_refresh_token` when there is none).
    /// When the check of a refresh answer refuses the answer (e.g. a refreshed ID Token with a wrong `at_hash`, or one
    /// failing the OpenID Connect Core §12.2 comparison), what happens depends on the answer:
    /// - it carries a refresh token different from `refreshToken` (the provider rotated it): the
    ///   refresh token sent is spent at the provider and the new one cannot be trusted, so the grant
    ///   is dead for us. Throws `refresh_token_spent` (OIDC's one rule for this, which the refresher's
    ///   own checks — its token type — follow too), whose reason names the check's code and reason (its
    ///   `joseError` is kept); ``classify(_:)`` makes it `logged_out`: the session logs out, a coordinated
    ///   store is cleared once for everyone, and nobody replays the spent refresh token (which a provider
    ///   with reuse detection would answer by revoking the whole token family).
    /// - it carries no refresh token, or the same one: the check's error is rethrown unchanged and
    ///   the tokens are kept (typed error, back-off).
    ///
    /// In neither case is anything of the refused answer put into use.
    static func checkedRefresh(
        of previous: TokenResponse, renewal: SessionRenewal,
        policy: RefreshedIDTokenPolicy
    ) async throws -> TokenResponse {
        let refresher: any TokenRefresher
        switch renewal {
        case .clientCredentials(let source):
            var fresh = try await source.refreshNow()
            fresh.refreshToken = nil
            return try await policy.tokens(afterRefresh: fresh, of: previous)
        case .refreshToken(let given): refresher = given
        }
        guard let refreshToken = previous.refreshToken else { throw noRefreshToken }
        let answer = try await refresher.refreshTokens(using: refreshToken)
        return try await SpentRefreshToken.checking(answerRefreshToken: answer.refreshToken, sent: refreshToken) {
            try await policy.tokens(afterRefresh: answer, of: previous)
        }
    }

    /// Whether `store` coordinates refreshes (and so clears itself on a refused one).
    static func storeIsCoordinated(_ store: (any TokenStore)?) -> Bool { store is any CoordinatedTokenStore }

    private static var noRefreshToken: OIDCError {
        OIDCError(.loggedOut, "the access token was refused and there is no refresh token", cause: .noRefreshToken)
    }
}
