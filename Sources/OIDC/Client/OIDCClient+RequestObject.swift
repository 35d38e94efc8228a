import JOSE

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension OIDCClient {
    /// A front-channel login with `request` sent as a request object, after the checks of
    /// ``start(_:push:requestObject:)``.
    ///
    /// Every parameter goes inside, signed as `options` says with `iss`, `aud` = the issuer, `iat`/`nbf`/`exp`
    /// and a fresh `jti`; encrypted to the provider's current encryption key when `options.encryption` is set
    /// (its `jwks_uri` fetched for each login, so a rotated key is used at once); passed by value or by
    /// reference. The URL also carries `client_id`, `response_type` and `scope`, which OpenID Connect Core §6.1
    /// wants outside. `request_object_failed` when the provider says it does not take the delivery chosen,
    /// signing or encryption fails, or the provider publishes no fitting encryption key; whatever `publish`
    /// throws, unchanged; `insecure_url` when the published URL is not `https` or loopback `http`.
    func startFrontChannel(_ request: OAuthRequest, requestObject options: RequestObject.Configuration) async throws -> PendingLogin {
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
            url = try RequestObject.authorizationURL(
                authorizationEndpoint: endpoint, clientID: clientID, requestObject: object,
                outerParameters: outer)
        case .byReference(let publish):
            let location = try await publish(object)
            url = try RequestObject.authorizationURL(
                authorizationEndpoint: endpoint, clientID: clientID, requestURI: location,
                outerParameters: outer)
        }
        return PendingLogin(
            try PendingAuthorization(
                request: request, pushedURL: url, issuer: metadata.issuer,
                issuerParameterSupported: requiresIssuerParameter))
    }

    /// A pushed login (PAR, RFC 9126) whose parameters travel as a request object (RFC 9101; FAPI 2.0 Message
    /// Signing), after the checks of ``start(_:push:requestObject:)``.
    ///
    /// The request object of ``startFrontChannel(_:requestObject:)``, with `dpop_jkt` inside when DPoP is
    /// configured, is pushed as `request` with the client's authentication; the URL carries only `client_id` and
    /// the `request_uri` the provider returned. `request_object_failed` for a delivery other than `.byValue`.
    func startPushed(_ request: OAuthRequest, requestObject options: RequestObject.Configuration) async throws -> PendingLogin {
        guard case .byValue = options.delivery else {
            throw OIDCError(.requestObjectFailed, "a pushed request object is sent by value: the delivery must be .byValue")
        }
        return try await pushedLogin(request) {
            let (object, _) = try await requestObject(for: request, options)
            return [("client_id", clientID), ("request", object)]
        }
    }

    /// The request object for `request` as `options` say (signed or unsigned, then encrypted to the provider's
    /// current key), and the parameters it holds (`dpop_jkt` added when DPoP is configured).
    private func requestObject(for request: OAuthRequest, _ options: RequestObject.Configuration) async throws
        -> (object: String, parameters: [(name: String, value: String)])
    {
        var parameters = try request.authorizationParameters()
        if let dpop = configuration.dpop, !parameters.contains(where: { $0.name == "dpop_jkt" }) {
            parameters.append(("dpop_jkt", dpop.key.thumbprint))
        }
        var object: String
        switch options.signature {
        case .signed(let key, let algorithm):
            object = try RequestObject.sign(
                parameters: parameters, clientID: clientID, issuer: issuer, key: key, algorithm: algorithm,
                lifetime: options.lifetime, now: configuration.clock())
        case .unsignedWithoutClientProof:
            object = try RequestObject.unsigned(
                parameters: parameters, clientID: clientID, issuer: issuer,
                lifetime: options.lifetime, now: configuration.clock())
        }
        if let encryption = options.encryption {
            guard case .cache(let cache) = providerKeys else {
                throw OIDCError(.requestObjectFailed, "the provider publishes no jwks_uri: there is no key to encrypt the request object to")
            }
            object = try RequestObject.encrypt(
                object, to: try await cache.encryptionKeys(), algorithm: encryption.algorithm,
                encryption: encryption.encryption)
        }
        return (object, parameters)
    }
}
