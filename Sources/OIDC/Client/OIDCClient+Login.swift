#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension OIDCClient {
    /// Starts a login: a request with fresh state, nonce and S256 PKCE for this client, bound to the
    /// provider's authorization endpoint and issuer (RFC 9207 `iss` required when the provider advertises
    /// `authorization_response_iss_parameter_supported`).
    /// - Parameters:
    ///   - redirectURI: where the provider sends the browser back (registered with the provider).
    ///   - scopes: the scopes to ask for (`openid` is put first when missing).
    ///   - responseType: `code` (default) or a hybrid or implicit type that returns tokens.
    ///   - configure: sets anything else ``OAuthRequest`` offers (prompt, `max_age`, `acr_values`, claims
    ///     request, login hint, extra parameters and their length caps, response mode ...).
    /// - Throws: ``OIDCError``: as ``startLogin(_:)``.
    public func startLogin(redirectURI: URL, scopes: [String] = ["openid"], responseType: ResponseType = .code,
                           configure: (inout OAuthRequest) throws -> Void = { _ in }) throws -> PendingLogin {
        try startLogin(try newRequest(redirectURI: redirectURI, scopes: scopes, responseType: responseType, configure: configure))
    }

    /// Starts a login with a request built by the caller.
    /// - Parameter request: the request, for this client's id.
    /// - Throws: ``OIDCError`` `.notAnOpenIDProvider` for an OAuth-only client (``providerKind``);
    ///   `.pendingLoginMismatch` when the request is for another client id;
    ///   `.invalidRequestParameter` for `response_type=id_token` (no token to return: validate such an ID Token
    ///   with ``validator``); `.pushedAuthorizationRequired` when the provider requires PAR
    ///   (`require_pushed_authorization_requests`) or the FAPI 2.0 profile is on (a `fapi_*` code first when the
    ///   request itself breaks the profile): use ``startPushedLogin(_:)``; any error of ``OAuthRequest/authorizationURL(at:)``.
    public func startLogin(_ request: OAuthRequest) throws -> PendingLogin {
        try checkStart(request)
        if configuration.fapi2Profile {
            throw OIDCError(.pushedAuthorizationRequired, "the FAPI 2.0 profile requires a pushed authorization request: use startPushedLogin")
        }
        try PushedAuthorization.checkFrontChannelAllowed(by: metadata)
        let endpoint = try endpoint(metadata.authorizationEndpoint, "authorization_endpoint")
        return PendingLogin(try request.pendingAuthorization(
            at: endpoint, issuer: metadata.issuer,
            issuerParameterSupported: requiresIssuerParameter))
    }

    /// Starts a login through a pushed authorization request (PAR, RFC 9126), as ``startLogin(redirectURI:scopes:responseType:configure:)``
    /// does otherwise: fresh state, nonce and S256 PKCE; `configure` sets anything else ``OAuthRequest`` offers.
    /// - Throws: ``OIDCError``: as ``startPushedLogin(_:)``.
    public func startPushedLogin(redirectURI: URL, scopes: [String] = ["openid"], responseType: ResponseType = .code,
                                 configure: (inout OAuthRequest) throws -> Void = { _ in }) async throws -> PendingLogin {
        try await startPushedLogin(try newRequest(redirectURI: redirectURI, scopes: scopes, responseType: responseType, configure: configure))
    }

    /// Starts a login by pushing `request` to the provider's `pushed_authorization_request_endpoint` with the
    /// client's authentication (and `dpop_jkt` when DPoP is configured); the pending login's URL carries only
    /// `client_id` and `request_uri`. Under the FAPI 2.0 profile the request is checked first, before anything is sent.
    /// - Parameter request: the request, for this client's id.
    /// - Throws: ``OIDCError``: as ``startLogin(_:)`` (but never `.pushedAuthorizationRequired`), a `fapi_*` code,
    ///   `.endpointNotAdvertised` without a PAR endpoint, the PAR endpoint's errors, `.invalidPushedAuthorizationResponse`.
    public func startPushedLogin(_ request: OAuthRequest) async throws -> PendingLogin {
        try checkStart(request)
        let parEndpoint = try endpoint(metadata.pushedAuthorizationRequestEndpoint, "pushed_authorization_request_endpoint")
        let authorizationEndpoint = try endpoint(metadata.authorizationEndpoint, "authorization_endpoint")
        let parameters = try request.authorizationParameters()
        let pushed = try await tokenClient.pushAuthorizationRequest(parameters, endpoint: parEndpoint)
        let url = try PushedAuthorization.authorizationURL(authorizationEndpoint: authorizationEndpoint, clientID: clientID,
                                                          requestURI: pushed.requestURI)
        return PendingLogin(try PendingAuthorization(request: request, pushedURL: url, issuer: metadata.issuer,
                                                     issuerParameterSupported: requiresIssuerParameter))
    }

    /// A request for this client with fresh state, nonce and S256 PKCE, adjusted by `configure`.
    func newRequest(redirectURI: URL, scopes: [String], responseType: ResponseType,
                    configure: (inout OAuthRequest) throws -> Void) throws -> OAuthRequest {
        var request = try OAuthRequest(clientID: clientID, redirectURI: redirectURI, responseType: responseType, scopes: scopes)
        try configure(&request)
        return request
    }

    /// The checks of a login start: this client's id, a response type that returns a token, the FAPI 2.0 rules when on.
    func checkStart(_ request: OAuthRequest) throws {
        guard providerKind == .openIDProvider else {
            throw OIDCError(.notAnOpenIDProvider, "the authorization server's metadata (RFC 8414) is not an OpenID provider's: "
                            + "it lacks \(metadata.missingRequiredOpenIDFields.joined(separator: ", ")); a login needs an ID Token")
        }
        if configuration.fapi2Profile { try FAPI2Profile.check(profileConfiguration(for: request)) }
        guard request.clientID == clientID else {
            throw OIDCError(.pendingLoginMismatch, "the request is for client \"\(request.clientID.prefix(64))\", not \"\(clientID.prefix(64))\"")
        }
        guard request.responseType.includesCode || request.responseType.includesAccessToken else {
            throw OIDCError(.invalidRequestParameter, "response_type \(request.responseType.rawValue) returns no token to finish a login with")
        }
    }

    /// Finishes a login in one call: checks the callback (redirect URI, state, RFC 9207 `iss`, an error
    /// response), validates a front-channel ID Token, exchanges the code with the PKCE verifier, refuses a
    /// `token_type` the client does not use, and validates the ID Token with everything `pending` implies
    /// (signature, `iss`, `aud`/`azp`, times, nonce, `max_age`/`auth_time`, essential `acr`, `at_hash`/`c_hash`).
    /// - Parameters:
    ///   - pending: the login started by ``startLogin(_:)``, possibly restored from storage.
    ///   - callback: the full redirect URL, or only its parameters (see ``AuthorizationCallback``).
    /// - Throws: ``OIDCError``: `.authorizationError` (the provider's error, in ``OIDCError/oauthError``),
    ///   every redirect, token-endpoint and ID Token code, `.unsupportedTokenType`, `.missingIDToken`,
    ///   `.pendingLoginMismatch`, `.hybridIDTokenMismatch`.
    public func finishLogin(_ pending: PendingLogin, callback: AuthorizationCallback) async throws -> LoginResult {
        guard pending.clientID == clientID, pending.issuer == issuer else {
            throw OIDCError(.pendingLoginMismatch, "the pending login was started for another client or issuer")
        }
        let request = pending.request
        let response = pending.authorization.responseMode.isJWT
            ? try await jarmResponse(callback, for: pending.authorization) : try pending.authorization.parse(callback)
        var frontChannel: IDToken?
        if let text = response.idToken {
            frontChannel = try await validator.validate(
                text, expecting: expectations(try IDTokenExpectations(request: request, authorizationResponse: response), for: request))
        }
        guard request.responseType.includesCode else {
            return try implicitResult(response, idToken: frontChannel)
        }
        guard let code = response.code else {
            throw OIDCError(.missingResponseParameter, "the response has no code")
        }
        let result = try await redeemCode(code, for: pending)
        if let frontChannel, frontChannel.issuer != result.idToken.issuer || frontChannel.subject != result.idToken.subject {
            throw OIDCError(.hybridIDTokenMismatch, "the token endpoint's ID Token names another issuer or subject than the front channel's")
        }
        return LoginResult(tokens: result.tokens, idToken: result.idToken, authorizationResponse: response)
    }

    /// The token half of a login, for a back end that receives only the code (an app checked the redirect
    /// and sends the code): exchanges it with the PKCE verifier of `pending`, refuses a `token_type` the
    /// client does not use, and validates the ID Token with everything `pending` implies (nonce, `max_age`,
    /// essential `acr`, `at_hash`). ``finishLogin(_:callback:)`` checks the redirect first, then does this.
    /// - Parameters:
    ///   - code: the authorization code.
    ///   - pending: the login the code answers (its verifier, nonce and what was asked).
    /// - Throws: ``OIDCError``: token-endpoint codes, `.unsupportedTokenType`, `.missingIDToken`, ID Token codes,
    ///   `.pendingLoginMismatch`.
    public func redeemCode(_ code: String, for pending: PendingLogin) async throws -> LoginResult {
        guard pending.clientID == clientID, pending.issuer == issuer else {
            throw OIDCError(.pendingLoginMismatch, "the pending login was started for another client or issuer")
        }
        let request = pending.request
        var tokens = try await tokenClient.exchangeCode(code, redirectURI: request.redirectURI,
                                                        codeVerifier: request.pkce?.verifier.value)
        try requireAcceptedTokenType(tokens)
        guard let idTokenText = tokens.idToken else {
            throw OIDCError(.missingIDToken, "the token response has no id_token (OpenID Connect Core §3.1.3.3)")
        }
        let idToken = try await validator.validate(
            idTokenText, expecting: expectations(IDTokenExpectations(request: request, tokenEndpointAccessToken: tokens.accessToken), for: request))
        tokens.idToken = idToken.compact  // the signed ID Token (decrypted, when it arrived encrypted)
        return LoginResult(tokens: tokens, idToken: idToken, authorizationResponse: AuthorizationResponse(code: code))
    }

    /// `id_token token`: the tokens come from the front channel.
    private func implicitResult(_ response: AuthorizationResponse, idToken: IDToken?) throws -> LoginResult {
        guard let idToken, response.idToken != nil else {
            throw OIDCError(.missingIDToken, "the response has no id_token")
        }
        guard let accessToken = response.accessToken else {
            throw OIDCError(.missingResponseParameter, "the response has no access_token")
        }
        let tokens = TokenResponse(accessToken: accessToken, tokenType: response.tokenType ?? "", expiresIn: response.expiresIn,
                                   expiresAt: response.expiresIn.map { configuration.clock().addingTimeInterval(TimeInterval($0)) },
                                   idToken: idToken.compact, scope: response.scope)
        try requireAcceptedTokenType(tokens)
        return LoginResult(tokens: tokens, idToken: idToken, authorizationResponse: response)
    }

    /// `base` with the claims this client requires beyond it (``Configuration/essentialClaims``).
    func expectations(_ base: IDTokenExpectations, for request: OAuthRequest) -> IDTokenExpectations {
        guard configuration.essentialClaims == .requireEvery else { return base }
        var expectations = base
        expectations.requiredClaims = IDTokenExpectations.essentialIDTokenClaims(of: request)
        return expectations
    }
}
