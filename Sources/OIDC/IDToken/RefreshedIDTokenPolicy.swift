/// What to do with an ID Token that comes back from a refresh, by OpenID Connect Core §12.2.
///
/// It is the one place that turns a refresh response into the tokens to keep,
/// ``tokens(afterRefresh:of:)``: every refresh path of the library calls it, so the rule exists once.
///
/// There is no silent default that stores an unchecked ID Token: either a validator
/// is given (`validate(with:)`), or ID Tokens are refused (``refuseIDTokens``), or
/// they are explicitly dropped unchecked (``discardIDTokens``).
public struct RefreshedIDTokenPolicy: Sendable {
    enum Mode: Sendable {
        case validate(IDTokenValidator, AuthTimeRule)
        case refuse
        case discard
    }

    let mode: Mode

    /// How the `auth_time` of an ID Token from a refresh may relate to the original's.
    ///
    /// OpenID Connect Core §12.2 says it must be "the time of the original authentication".
    /// Real providers report the user's **latest** authentication instead: django-oauth-toolkit
    /// sets `auth_time` to the user's last login, so after the same user logs in a second time
    /// anywhere, every earlier session's refresh carries the later time. ``sameOrLater`` (the
    /// default) accepts that — the user did authenticate again — and refuses a time that moves
    /// backwards; ``unchanged`` is the strict reading.
    public enum AuthTimeRule: Sendable, Hashable {
        /// The refreshed `auth_time` equals the original's or is later (the user authenticated
        /// again); an earlier one is refused. The default.
        case sameOrLater
        /// The refreshed `auth_time` must equal the original's exactly (the letter of §12.2);
        /// a provider that reports the latest login then ends a session at the user's next login elsewhere.
        case unchanged
    }

    /// A refreshed ID Token is validated by `validator` and must then identify the same session as the previous one.
    ///
    /// The validation checks the signature, `iss`, `aud`, `azp`, `exp`, `iat`, `sub` and `at_hash` against the
    /// new access token. The token must then carry the previous ID Token's `iss`, `sub`, `aud` and `azp`, its
    /// `nonce` when it has one, and an `auth_time` that `authTime` allows. The accepted token replaces the
    /// previous one, so the next refresh is compared with it. Without a previous ID Token only the validation applies.
    /// - Parameters:
    ///   - validator: validates the refreshed ID Token.
    ///   - authTime: how the refreshed `auth_time` may relate to the previous one. Default ``AuthTimeRule/sameOrLater``,
    ///     as django-oauth-toolkit reports the user's latest login; ``AuthTimeRule/unchanged`` is the strict §12.2 reading.
    public static func validate(with validator: IDTokenValidator, authTime: AuthTimeRule = .sameOrLater) -> RefreshedIDTokenPolicy {
        RefreshedIDTokenPolicy(mode: .validate(validator, authTime))
    }

    /// No ID Token is expected from a refresh (a plain OAuth 2.0 grant): a refresh
    /// response that carries one is refused with `.refreshIDTokenNotExpected`
    /// and nothing of it is kept.
    public static let refuseIDTokens = RefreshedIDTokenPolicy(mode: .refuse)

    /// Explicit opt-out: a refreshed ID Token is neither validated nor kept; the
    /// previous ID Token (if any) stays. The new access and refresh tokens are kept.
    public static let discardIDTokens = RefreshedIDTokenPolicy(mode: .discard)

    /// The tokens to keep after a refresh that started from `previous`.
    ///
    /// The refresh token and ID Token of `previous` are carried over when the response
    /// has none (RFC 6749 §6 allows keeping the refresh token; OIDC Core §12.2 makes
    /// the ID Token optional). A new ID Token is handled as this policy says.
    /// - Throws: ``/OIDCCore/OIDCError`` of category `invalidInput`: the validator's codes, such as `.expired`,
    ///   `.refreshSubjectChanged` or `.refreshAuthTimeChanged`, and `.refreshIDTokenNotExpected`.
    ///   Nothing of `refreshed` may be kept then.
    public func tokens(afterRefresh refreshed: TokenResponse, of previous: TokenResponse) async throws -> TokenResponse {
        var kept = refreshed
        if kept.refreshToken == nil { kept.refreshToken = previous.refreshToken }
        guard let idToken = refreshed.idToken else {
            kept.idToken = previous.idToken
            return kept
        }
        switch mode {
        case .refuse:
            throw OIDCError(
                .refreshIDTokenNotExpected,
                "the refresh response carries an ID Token and no validator was given (use RefreshedIDTokenPolicy.validate(with:))")
        case .discard:
            kept.idToken = previous.idToken
            return kept
        case .validate(let validator, let authTimeRule):
            // No nonce is sent with a refresh; the refreshed token's `nonce`, if any, is compared
            // with the previous ID Token's by checkIsRefresh (§12.2).
            let expectations = IDTokenExpectations(flow: .tokenEndpoint(accessToken: refreshed.accessToken), nonce: .noNonceSent)
            let validated = try await validator.validate(idToken, expecting: expectations)
            if let original = previous.idToken {
                try validated.checkIsRefresh(of: try validator.config.validatedIDToken(original), authTime: authTimeRule)
            }
            kept.idToken = validated.compact  // the signed ID Token (decrypted, when it arrived encrypted)
            return kept  // the new ID Token replaces the previous one
        }
    }
}
