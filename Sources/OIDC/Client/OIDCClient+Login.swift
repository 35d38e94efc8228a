#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension OIDCClient {
    /// Starts a login: the URL to send the browser to, and the pending login that checks the answer.
    ///
    /// The request gets fresh state, nonce and S256 PKCE and is bound to this provider's issuer, so the answer's
    /// RFC 9207 `iss` is checked whenever the provider advertises it. It is pushed (PAR, RFC 9126) as
    /// ``LoginRequest/push`` says, always under the FAPI 2.0 profile, and travels as a request object when
    /// ``LoginRequest/requestObject`` is set. Under the FAPI 2.0 profile the request is checked before anything
    /// is signed or sent.
    /// - Parameter login: what to ask for.
    /// - Throws: ``/OIDCCore/OIDCError``: `invalid_request_parameter` or `parameter_collision` for a bad value,
    ///   `pushed_authorization_required` when `push` is `.never` but pushing is required, a `fapi_*` code;
    ///   the PAR endpoint's and the request object's errors.
    public func startLogin(_ login: LoginRequest) async throws -> PendingLogin {
        var request = try OAuthRequest(clientID: clientID, login: login)
        if configuration.optOutOfPKCE, request.pkce != nil {
            request.pkce = nil  // the configuration's named opt-out, recorded with the observer
            configuration.observer?.record(
                OIDCEvent(kind: .pkceOmitted, outcome: .success, origin: metadata.authorizationEndpoint.flatMap(OIDCEvent.origin(of:))))
        }
        return try await start(request, push: login.push, requestObject: login.requestObject)
    }

    /// Starts a login for a request built in full: the one path behind ``startLogin(_:)``.
    package func start(
        _ request: OAuthRequest, push: LoginRequest.Push = .whenRequired,
        requestObject options: RequestObject.Configuration? = nil
    ) async throws -> PendingLogin {
        try checkStart(request)
        let pushed: Bool
        switch push {
        case .always:
            pushed = true
        case .whenRequired:
            pushed = configuration.fapi2Profile || metadata.requirePushedAuthorizationRequests == true
        case .never:
            if configuration.fapi2Profile {
                throw OIDCError(
                    .pushedAuthorizationRequired,
                    "the FAPI 2.0 profile requires a pushed authorization request, "
                        + "but the login request says push: .never")
            }
            try PushedAuthorization.checkFrontChannelAllowed(by: metadata)
            pushed = false
        }
        switch (pushed, options) {
        case (false, nil):
            let endpoint = try endpoint(metadata.authorizationEndpoint, "authorization_endpoint")
            return PendingLogin(
                try request.pendingAuthorization(
                    at: endpoint, issuer: metadata.issuer,
                    issuerParameterSupported: requiresIssuerParameter))
        case (false, let options?):
            return try await startFrontChannel(request, requestObject: options)
        case (true, nil):
            return try await pushedLogin(request) { try request.authorizationParameters() }
        case (true, let options?):
            return try await startPushed(request, requestObject: options)
        }
    }

    /// Pushes the form `parameters` builds to the PAR endpoint (RFC 9126) and answers the pending login whose URL
    /// carries only `client_id` and the `request_uri` the provider returned. Both endpoints are checked before the
    /// form is built, so a provider without them fails before anything is signed or sent.
    func pushedLogin(_ request: OAuthRequest, parameters: () async throws -> [(name: String, value: String)]) async throws
        -> PendingLogin
    {
        let parEndpoint = try endpoint(metadata.pushedAuthorizationRequestEndpoint, "pushed_authorization_request_endpoint")
        let authorizationEndpoint = try endpoint(metadata.authorizationEndpoint, "authorization_endpoint")
        let pushed = try await tokenClient.pushAuthorizationRequest(try await parameters(), endpoint: parEndpoint)
        let url = try PushedAuthorization.authorizationURL(
            authorizationEndpoint: authorizationEndpoint, clientID: clientID, requestURI: pushed.requestURI)
        return PendingLogin(
            try PendingAuthorization(
                request: request, pushedURL: url, issuer: metadata.issuer, issuerParameterSupported: requiresIssuerParameter))
    }

    /// A pending login for a login that an app started on its own and handed to this back end.
    ///
    /// Finish it with ``AuthorizationCallback/codeCheckedByApp(_:)``: the code is redeemed with the app's PKCE
    /// verifier and the ID Token must carry the app's nonce.
    /// - Parameters:
    ///   - redirectURI: the redirect URI the app sent, repeated at the token endpoint.
    ///   - codeVerifier: the app's PKCE verifier.
    ///   - nonce: the app's nonce, or `nil` when it sent none.
    /// - Throws: ``/OIDCCore/OIDCError`` `invalid_code_verifier`, `invalid_secret_value`, `not_an_openid_provider`.
    public func pendingLogin(startedByApp redirectURI: URL, codeVerifier: String, nonce: String?) throws -> PendingLogin {
        let request = OAuthRequest(
            clientID: clientID, redirectURI: redirectURI, state: try .random(),
            nonce: try nonce.map(Nonce.init), pkce: PKCE(verifier: try CodeVerifier(codeVerifier)))
        try checkStart(request)
        let endpoint = try endpoint(metadata.authorizationEndpoint, "authorization_endpoint")
        return PendingLogin(
            try request.pendingAuthorization(
                at: endpoint, issuer: metadata.issuer,
                issuerParameterSupported: requiresIssuerParameter))
    }

    /// The checks of a login start: this client's id, a response type that returns a token, the FAPI 2.0 rules when on.
    func checkStart(_ request: OAuthRequest) throws {
        guard providerKind == .openIDProvider else {
            throw OIDCError(
                .notAnOpenIDProvider,
                "the authorization server's metadata (RFC 8414) is not an OpenID provider's: "
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

    /// Finishes a login in one call: the tokens, and an ID Token checked against everything `pending` asked for.
    ///
    /// Checks the answer (redirect URI, `state` in constant time, RFC 9207 `iss`, an error response, a JARM
    /// response JWT), validates a front-channel ID Token, redeems the code with the PKCE verifier, refuses a
    /// `token_type` the client does not use, and validates the ID Token: signature, `iss`, `aud`/`azp`, times,
    /// nonce, `max_age`/`auth_time`, essential `acr`, `at_hash`/`c_hash`.
    /// - Parameters:
    ///   - pending: the login ``startLogin(_:)`` started, possibly restored from storage.
    ///   - callback: the answer in the form the back end has it: URL, parameters, form post body.
    /// - Throws: ``/OIDCCore/OIDCError``: `authorization_error` with the provider's ``/OIDCCore/OIDCError/oauthError``,
    ///   `state_mismatch` or `response_issuer_mismatch` for a forged answer, a token-endpoint or ID Token code.
    public func finishLogin(_ pending: PendingLogin, callback: AuthorizationCallback) async throws -> LoginResult {
        guard pending.clientID == clientID, pending.issuer == issuer else {
            throw OIDCError(.pendingLoginMismatch, "the pending login was started for another client or issuer")
        }
        if case .codeCheckedByApp(let code) = callback {
            return try await redeemCode(code, for: pending)
        }
        let request = pending.request
        let response =
            pending.authorization.responseMode.isJWT
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

    /// The token half of a login: redeems `code` with the PKCE verifier of `pending`, refuses a `token_type`
    /// the client does not use, and validates the ID Token with everything `pending` implies.
    func redeemCode(_ code: String, for pending: PendingLogin) async throws -> LoginResult {
        guard pending.clientID == clientID, pending.issuer == issuer else {
            throw OIDCError(.pendingLoginMismatch, "the pending login was started for another client or issuer")
        }
        let request = pending.request
        var tokens = try await tokenClient.exchangeCode(
            code, redirectURI: request.redirectURI,
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
        let tokens = TokenResponse(
            accessToken: accessToken, tokenType: response.tokenType ?? "", expiresIn: response.expiresIn,
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
