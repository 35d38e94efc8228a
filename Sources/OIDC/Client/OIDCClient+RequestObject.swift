#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import JOSE

extension OIDCClient {
    /// Starts a login whose authorization request travels as a request object (OpenID Connect Core §6,
    /// RFC 9101), as ``startLogin(redirectURI:scopes:responseType:configure:)`` does otherwise: fresh state,
    /// nonce and S256 PKCE; `configure` sets anything else ``OAuthRequest`` offers.
    /// - Throws: ``OIDCError``: as ``startLogin(_:requestObject:)``.
    public func startLogin(redirectURI: URL, scopes: [String] = ["openid"], responseType: ResponseType = .code,
                           requestObject options: RequestObjectOptions,
                           configure: (inout OAuthRequest) throws -> Void = { _ in }) async throws -> PendingLogin {
        try await startLogin(try newRequest(redirectURI: redirectURI, scopes: scopes, responseType: responseType, configure: configure),
                             requestObject: options)
    }

    /// Starts a login with `request` sent as a request object: every parameter inside it (signed as `options`
    /// says, with `iss`, `aud` = the issuer, `iat`/`nbf`/`exp` and a fresh `jti`), encrypted to the provider's
    /// current encryption key when `options.encryption` is set (its `jwks_uri` fetched for each login, so a
    /// rotated key is used at once), and passed by value (`request`) or by reference (`request_uri`, published
    /// by the caller). The front-channel URL carries `client_id`, `request`/`request_uri`, and `response_type`
    /// and `scope`, which OpenID Connect Core §6.1 also wants outside. The redirect back is checked exactly as
    /// for ``startLogin(_:)``.
    /// - Throws: ``OIDCError``: as ``startLogin(_:)``; `.requestObjectFailed` when the provider says it does not
    ///   take the delivery chosen (`request_parameter_supported` / `request_uri_parameter_supported`: `false`),
    ///   signing or encryption fails, or the provider publishes no fitting encryption key (or no `jwks_uri`);
    ///   whatever `publish` throws, unchanged; `.invalidIssuerURL` / `.insecureURL` when the
    ///   published URL is not `https` (or `http` on a loopback host); a key-set fetch error.
    public func startLogin(_ request: OAuthRequest, requestObject options: RequestObjectOptions) async throws -> PendingLogin {
        try checkStart(request)
        if configuration.fapi2Profile {
            throw OIDCError(.pushedAuthorizationRequired, "the FAPI 2.0 profile requires a pushed authorization request: use startPushedLogin")
        }
        try PushedAuthorization.checkFrontChannelAllowed(by: metadata)
        switch options.delivery {
        case .byValue where metadata.requestParameterSupported == false:
            throw OIDCError(.requestObjectFailed, "the provider does not take request objects by value (request_parameter_supported: false)")
        case .byReference where metadata.requestURIParameterSupported == false:
            throw OIDCError(.requestObjectFailed, "the provider does not take request objects by reference (request_uri_parameter_supported: false)")
        default:
            break
        }
        let endpoint = try endpoint(metadata.authorizationEndpoint, "authorization_endpoint")
        let (object, parameters) = try await requestObject(for: request, options)
        let outer = parameters.filter { $0.name == "response_type" || $0.name == "scope" }
        let url: URL
        switch options.delivery {
        case .byValue:
            url = try RequestObject.authorizationURL(authorizationEndpoint: endpoint, clientID: clientID, requestObject: object,
                                                     outerParameters: outer)
        case .byReference(let publish):
            let location = try await publish(object)
            url = try RequestObject.authorizationURL(authorizationEndpoint: endpoint, clientID: clientID, requestURI: location,
                                                     outerParameters: outer)
        }
        return PendingLogin(try PendingAuthorization(request: request, pushedURL: url, issuer: metadata.issuer,
                                                     issuerParameterSupported: requiresIssuerParameter))
    }

    /// Starts a pushed login whose parameters travel as a request object, as
    /// ``startPushedLogin(redirectURI:scopes:responseType:configure:)`` does otherwise.
    /// - Throws: ``OIDCError``: as ``startPushedLogin(_:requestObject:)``.
    public func startPushedLogin(redirectURI: URL, scopes: [String] = ["openid"], responseType: ResponseType = .code,
                                 requestObject options: RequestObjectOptions,
                                 configure: (inout OAuthRequest) throws -> Void = { _ in }) async throws -> PendingLogin {
        try await startPushedLogin(try newRequest(redirectURI: redirectURI, scopes: scopes, responseType: responseType, configure: configure),
                                   requestObject: options)
    }

    /// Starts a login through a pushed authorization request (PAR, RFC 9126) whose parameters travel as a
    /// request object (RFC 9101; FAPI 2.0 Message Signing): the request object of ``startLogin(_:requestObject:)``
    /// (with `dpop_jkt` inside when DPoP is configured) is pushed as `request` with the client's authentication,
    /// and the front-channel URL carries only `client_id` and the `request_uri` the provider returned. Under the
    /// FAPI 2.0 profile the request is checked first, before anything is signed or sent.
    /// - Throws: ``OIDCError``: as ``startPushedLogin(_:)``; `.requestObjectFailed` for a delivery other than
    ///   `.byValue` (a pushed request object is sent by value), or when signing or encryption fails.
    public func startPushedLogin(_ request: OAuthRequest, requestObject options: RequestObjectOptions) async throws -> PendingLogin {
        try checkStart(request)
        guard case .byValue = options.delivery else {
            throw OIDCError(.requestObjectFailed, "a pushed request object is sent by value: the delivery must be .byValue")
        }
        let parEndpoint = try endpoint(metadata.pushedAuthorizationRequestEndpoint, "pushed_authorization_request_endpoint")
        let authorizationEndpoint = try endpoint(metadata.authorizationEndpoint, "authorization_endpoint")
        let (object, _) = try await requestObject(for: request, options)
        let pushed = try await tokenClient.pushAuthorizationRequest([("client_id", clientID), ("request", object)], endpoint: parEndpoint)
        let url = try PushedAuthorization.authorizationURL(authorizationEndpoint: authorizationEndpoint, clientID: clientID,
                                                          requestURI: pushed.requestURI)
        return PendingLogin(try PendingAuthorization(request: request, pushedURL: url, issuer: metadata.issuer,
                                                     issuerParameterSupported: requiresIssuerParameter))
    }

    /// The request object for `request` as `options` say (signed or unsigned, then encrypted to the provider's
    /// current key), and the parameters it holds (`dpop_jkt` added when DPoP is configured).
    private func requestObject(for request: OAuthRequest, _ options: RequestObjectOptions) async throws
        -> (object: String, parameters: [(name: String, value: String)]) {
        var parameters = try request.authorizationParameters()
        if let dpop = configuration.dpop, !parameters.contains(where: { $0.name == "dpop_jkt" }) {
            parameters.append(("dpop_jkt", dpop.key.thumbprint))
        }
        var object: String
        switch options.signature {
        case .signed(let key, let algorithm):
            object = try RequestObject.sign(parameters: parameters, clientID: clientID, issuer: issuer, key: key, algorithm: algorithm,
                                            lifetime: options.lifetime, now: configuration.clock())
        case .unsignedWithoutClientProof:
            object = try RequestObject.unsigned(parameters: parameters, clientID: clientID, issuer: issuer,
                                                lifetime: options.lifetime, now: configuration.clock())
        }
        if let encryption = options.encryption {
            guard case .cache(let cache) = providerKeys else {
                throw OIDCError(.requestObjectFailed, "the provider publishes no jwks_uri: there is no key to encrypt the request object to")
            }
            object = try RequestObject.encrypt(object, to: try await cache.encryptionKeys(), algorithm: encryption.algorithm,
                                               encryption: encryption.encryption)
        }
        return (object, parameters)
    }
}
