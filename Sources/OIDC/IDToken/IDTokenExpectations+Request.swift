import JOSE

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension IDTokenExpectations {
    /// What the ID Token of an authorization response must reflect, from the request
    /// that was sent: the flow and hashed values (by `response_type`), the nonce,
    /// `max_age`, essential `auth_time`, and essential `acr` (from the `claims`
    /// parameter, its `value`/`values`, else `acr_values`).
    /// - Throws: ``OIDCError`` `.missingResponseParameter` when a hybrid response lacks its `code`.
    package init(request: OAuthRequest, authorizationResponse response: AuthorizationResponse) throws {
        let flow: IDTokenFlow
        switch request.responseType {
        case .idToken:
            flow = .implicit()
        case .idTokenToken:
            flow = .implicit(accessToken: response.accessToken)
        case .codeIDToken, .codeIDTokenToken:
            guard let code = response.code else {
                throw OIDCError(.missingResponseParameter, "the hybrid response has no code, which its ID Token's c_hash covers")
            }
            flow = .hybrid(code: code, accessToken: request.responseType == .codeIDTokenToken ? response.accessToken : nil)
        case .code, .codeToken:
            flow = .tokenEndpoint()
        }
        self.init(request: request, flow: flow)
    }

    /// What an ID Token from the token endpoint must reflect, from the request that was sent.
    /// - Parameters:
    ///   - request: the authentication request that was sent.
    ///   - accessToken: the access token of the same response, checked against `at_hash` when present.
    package init(request: OAuthRequest, tokenEndpointAccessToken accessToken: String?) {
        self.init(request: request, flow: .tokenEndpoint(accessToken: accessToken))
    }

    init(request: OAuthRequest, flow: IDTokenFlow) {
        let acr = request.claims?.idToken["acr"]
        let requestedACR: [String] = {
            if let values = acr?.values { return values.compactMap(\.stringValue) }
            if let value = acr?.value?.stringValue { return [value] }
            return request.acrValues
        }()
        self.init(
            flow: flow, nonce: ExpectedNonce(request.nonce), maxAge: request.maxAge.map(TimeInterval.init),
            authTimeEssential: request.claims?.idToken["auth_time"]?.essential == true,
            acrValues: requestedACR.isEmpty ? nil : requestedACR, acrEssential: acr?.essential == true)
    }

    /// The names of the claims `request` asked for as essential in the ID Token (its `claims` parameter's
    /// `id_token` member), for ``requiredClaims``.
    package static func essentialIDTokenClaims(of request: OAuthRequest) -> Set<String> {
        Set((request.claims?.idToken ?? RequestedClaims()).claims.compactMap { $0.requirement.essential == true ? $0.name : nil })
    }
}
