import JOSE

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension OIDCClient {
    /// Uses the refresh token of `tokens`. A returned ID Token is validated (signature and claims) and must
    /// identify the same session as the one in `tokens` (OpenID Connect Core §12.2, as `RefreshedIDTokenPolicy.validate(with:)`:
    /// `iss`, `sub`, `aud`, `azp` and a present `nonce` unchanged, `auth_time` the same or later); a missing refresh token
    /// or ID Token in the answer is carried over from `tokens` (RFC 6749 §6).
    /// - Parameters:
    ///   - tokens: the current tokens (their refresh token is used, their ID Token compared with the new one).
    ///   - scope: narrows the granted scope, when given.
    /// - Throws: ``/OIDCCore/OIDCError``; category `.authenticateAgain` when the grant is gone: `.oauthError` `invalid_grant`,
    ///   or `.refreshTokenSpent` when a check refused an answer that rotated the refresh token (never retry with it);
    ///   `.invalidTokenRequest` when `tokens` has no refresh token.
    public func refresh(_ tokens: TokenResponse, scope: String? = nil) async throws -> TokenResponse {
        guard let refreshToken = tokens.refreshToken else {
            throw OIDCError(.invalidTokenRequest, "the tokens have no refresh token")
        }
        let fresh = try await refreshGrant(refreshToken, scope: scope)
        return try await SpentRefreshToken.checking(answerRefreshToken: fresh.refreshToken, sent: refreshToken) {
            try await refreshedIDTokens.tokens(afterRefresh: fresh, of: tokens)
        }
    }

    /// How this client treats an ID Token in a refresh response: validated by ``validator`` and checked
    /// against the previous one (§12.2), through the one implementation the session uses too.
    public var refreshedIDTokens: RefreshedIDTokenPolicy { .validate(with: validator) }

    /// The `refresh_token` grant and the token-type check; the ID Token is left to ``refreshedIDTokens``.
    package func refreshGrant(_ refreshToken: String, scope: String? = nil) async throws -> TokenResponse {
        let fresh = try await tokenClient.refresh(refreshToken, scope: scope)
        try await SpentRefreshToken.checking(answerRefreshToken: fresh.refreshToken, sent: refreshToken) {
            try requireAcceptedTokenType(fresh)
        }
        return fresh
    }

    /// Calls UserInfo with the access token of `tokens`, reads the answer in the registered form
    /// (``Configuration/userInfoFormat``: JSON, signed, encrypted, or signed then encrypted) and checks that
    /// its `sub` equals the ID Token's (OpenID Connect Core §5.3.2).
    /// - Parameter tokens: the tokens of a login (their access token is sent, their ID Token's `sub` compared).
    /// - Throws: ``/OIDCCore/OIDCError`` `.userInfoSubjectMismatch`, `.missingIDToken` when `tokens` has no ID Token,
    ///   `.endpointNotAdvertised`, and the endpoint's errors.
    public func userInfo(_ tokens: TokenResponse) async throws -> JSONObject {
        guard let idTokenText = tokens.idToken else {
            throw OIDCError(.missingIDToken, "the tokens have no ID Token to check UserInfo's \"sub\" against")
        }
        let subject = try validator.config.validatedIDToken(idTokenText).subject
        let claims = try await fetchUserInfoClaims(accessToken: tokens.accessToken)
        try TokenClient.checkUserInfoSubject(claims, idTokenSubject: subject)
        return claims
    }

    /// Revokes a token at the provider's `revocation_endpoint` (RFC 7009).
    /// - Parameters:
    ///   - token: the access or refresh token to revoke.
    ///   - hint: `access_token` or `refresh_token`, when known.
    /// - Throws: ``/OIDCCore/OIDCError`` `.endpointNotAdvertised`, endpoint errors.
    public func revoke(_ token: String, hint: String? = nil) async throws {
        try await tokenClient.revoke(token, hint: hint, endpoint: try endpoint(metadata.revocationEndpoint, "revocation_endpoint"))
    }

    /// The URL that ends the user's session at the provider (OpenID Connect RP-Initiated Logout 1.0):
    /// the `end_session_endpoint` with `id_token_hint`, `client_id`, `post_logout_redirect_uri` and `state`
    /// (each only when given; `client_id` always).
    /// - Parameters:
    ///   - idTokenHint: the user's ID Token (compact form), so the provider knows whom to log out.
    ///   - postLogoutRedirectURI: where the provider sends the browser afterwards (registered with the provider).
    ///   - state: a value the provider returns with that redirect.
    /// - Throws: ``/OIDCCore/OIDCError`` `.endpointNotAdvertised`, `.insecureURL` / `.invalidIssuerURL` for the endpoint,
    ///   `.invalidAuthorizationEndpoint` when a URL cannot be formed.
    public func logoutURL(idTokenHint: String?, postLogoutRedirectURI: URL?, state: String?) throws -> URL {
        let base = try endpoint(metadata.endSessionEndpoint, "end_session_endpoint")
        try SecureURLPolicy.checkEndpoint(base, .endSession, issuer: issuer)
        var parameters: [(name: String, value: String)] = []
        if let idTokenHint { parameters.append(("id_token_hint", idTokenHint)) }
        parameters.append(("client_id", clientID))
        if let postLogoutRedirectURI { parameters.append(("post_logout_redirect_uri", postLogoutRedirectURI.absoluteString)) }
        if let state { parameters.append(("state", state)) }
        guard var components = URLComponents(url: base, resolvingAgainstBaseURL: false) else {
            throw OIDCError(.invalidAuthorizationEndpoint, "the end_session_endpoint is not a valid URL")
        }
        let existing = components.percentEncodedQuery.map { $0.isEmpty ? "" : $0 + "&" } ?? ""
        components.percentEncodedQuery = existing + FormURLEncoding.encode(parameters)
        guard let url = components.url else {
            throw OIDCError(.invalidAuthorizationEndpoint, "the logout URL cannot be formed from the end_session_endpoint")
        }
        return url
    }
}
