

/// What to do with an ID Token that comes back from a refresh (OpenID Connect Core §12.2),
/// and the one place that turns a refresh response into the tokens to keep:
/// ``tokens(afterRefresh:of:)``. Every refresh path of the library (the session,
/// a client's refresh) calls it, so the rule exists once.
///
/// There is no silent default that stores an unchecked ID Token: either a validator
/// is given (``validate(with:)``), or ID Tokens are refused (``refuseIDTokens``), or
/// they are explicitly dropped unchecked (``discardIDTokens``).
public struct RefreshedIDTokenPolicy: Sendable {
    enum Mode: Sendable {
        case validate(IDTokenValidator, RefreshAuthTimeRule)
        case refuse
        case discard
    }

    let mode: Mode

    /// A refreshed ID Token is validated by `validator` (signature, `iss`, `aud`, `azp`,
    /// `exp`, `iat`, `sub`, `at_hash` against the new access token) and must then identify
    /// the same session as the previous ID Token (``IDToken/checkIsRefresh(of:authTime:)``:
    /// the same `iss`, `sub`, `aud` and `azp`; the previous `nonce` when it carries one; an
    /// `auth_time` equal to the previous one **or later** — the user authenticated again, as
    /// django-oauth-toolkit reports after the same user's next login anywhere — never earlier).
    /// The accepted token then replaces the previous one, so the next refresh is compared with it.
    /// When there is no previous ID Token, only the validation applies.
    ///
    /// For the strict reading of §12.2 (`auth_time` unchanged), use ``validate(with:authTime:)``
    /// with ``RefreshAuthTimeRule/unchanged``.
    public static func validate(with validator: IDTokenValidator) -> RefreshedIDTokenPolicy {
        RefreshedIDTokenPolicy(mode: .validate(validator, .sameOrLater))
    }

    /// As ``validate(with:)``, with the `auth_time` rule named: ``RefreshAuthTimeRule/unchanged``
    /// refuses any change of `auth_time` (`.refreshAuthTimeChanged`), ``RefreshAuthTimeRule/sameOrLater``
    /// is ``validate(with:)``.
    /// - Parameters:
    ///   - validator: validates the refreshed ID Token.
    ///   - authTime: how the refreshed `auth_time` may relate to the previous one.
    public static func validate(with validator: IDTokenValidator, authTime: RefreshAuthTimeRule) -> RefreshedIDTokenPolicy {
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
    /// - Throws: ``OIDCError``: the validator's codes (`.expired`, `.issuerMismatch`,
    ///   signature errors...), `.refreshIssuerChanged`, `.refreshSubjectChanged`,
    ///   `.refreshAudienceChanged`, `.refreshAuthorizedPartyChanged`,
    ///   `.refreshNonceChanged`, `.refreshAuthTimeChanged`, `.malformedIDToken` (the previous ID Token cannot
    ///   be read), or `.refreshIDTokenNotExpected`. Nothing of `refreshed` may be kept then.
    public func tokens(afterRefresh refreshed: TokenResponse, of previous: TokenResponse) async throws -> TokenResponse {
        var kept = refreshed
        if kept.refreshToken == nil { kept.refreshToken = previous.refreshToken }
        guard let idToken = refreshed.idToken else {
            kept.idToken = previous.idToken
            return kept
        }
        switch mode {
        case .refuse:
            throw OIDCError(.refreshIDTokenNotExpected,
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
