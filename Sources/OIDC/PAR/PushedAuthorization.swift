import JOSE

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The answer of a pushed authorization request endpoint (RFC 9126 §2.2).
package struct PushedAuthorizationResponse: Sendable, Hashable, Codable {
    /// `request_uri`: the reference the front channel carries.
    package var requestURI: String
    /// `expires_in`: seconds the reference stays valid.
    package var expiresIn: Int

    /// Creates a response.
    package init(requestURI: String, expiresIn: Int) {
        self.requestURI = requestURI
        self.expiresIn = expiresIn
    }
}

/// Pushed authorization requests (PAR, RFC 9126).
package enum PushedAuthorization {
    /// Refuses a front-channel request (all parameters in the URL) to a provider whose
    /// metadata says `require_pushed_authorization_requests` (RFC 9126 §5): call it before
    /// building a plain authorization URL.
    /// - Throws: ``OIDCError`` `.pushedAuthorizationRequired`.
    package static func checkFrontChannelAllowed(by metadata: ProviderMetadata) throws {
        if metadata.requirePushedAuthorizationRequests == true {
            throw OIDCError(.pushedAuthorizationRequired, "the provider requires pushed authorization requests (require_pushed_authorization_requests)")
        }
    }

    /// The authorization URL after a push: `client_id` and `request_uri` only (RFC 9126 §4).
    /// - Throws: ``OIDCError`` `.invalidIssuerURL` / `.insecureURL` for an endpoint that is not https (or loopback http).
    package static func authorizationURL(authorizationEndpoint: URL, clientID: String, requestURI: String) throws -> URL {
        try frontChannelURL(authorizationEndpoint, [("client_id", clientID), ("request_uri", requestURI)])
    }

    /// `endpoint` with `parameters` appended to its query (existing query members kept).
    static func frontChannelURL(_ endpoint: URL, _ parameters: [(name: String, value: String)]) throws -> URL {
        try SecureURLPolicy.check(endpoint, what: "the authorization endpoint")
        var text = endpoint.absoluteString
        if let hash = text.firstIndex(of: "#") { text = String(text[..<hash]) }
        let separator = text.contains("?") ? (text.hasSuffix("?") || text.hasSuffix("&") ? "" : "&") : "?"
        guard let url = URL(string: text + separator + FormURLEncoding.encode(parameters)) else {
            throw OIDCError(.invalidRequestParameter, "the authorization URL could not be built")
        }
        return url
    }

    /// Reads the endpoint's answer (HTTP 201 or 200): a string `request_uri` and a positive integer `expires_in`.
    static func parse(_ object: JSONObject, response: TransportResponse) throws -> PushedAuthorizationResponse {
        guard let requestURI = object["request_uri"]?.stringValue, !requestURI.isEmpty else {
            throw OIDCError(.invalidPushedAuthorizationResponse, "the PAR response has no string \"request_uri\"", httpStatus: response.status)
        }
        guard let seconds = object["expires_in"]?.int64Value, seconds > 0, seconds <= Int64(Int32.max) else {
            throw OIDCError(.invalidPushedAuthorizationResponse, "the PAR response has no positive integer \"expires_in\"", httpStatus: response.status)
        }
        return PushedAuthorizationResponse(requestURI: requestURI, expiresIn: Int(seconds))
    }
}

extension TokenClient {
    /// Pushes the authorization request `parameters` (RFC 9126 §2.1) with the
    /// client's authentication and returns the `request_uri` and its lifetime.
    ///
    /// With a DPoP binding, `dpop_jkt` (the key's thumbprint, RFC 9449 §10) is
    /// added so the code is bound to the key; no proof header is sent with the push.
    /// The parameters are sent as given (pass `request` for a signed request object).
    /// - Throws: ``OIDCError`` `.invalidRequestParameter` when the parameters carry
    ///   `request_uri` or a `dpop_jkt` that differs from the binding's key, the endpoint
    ///   errors (`.oauthError` ...), `.invalidPushedAuthorizationResponse`.
    package func pushAuthorizationRequest(_ parameters: [(name: String, value: String)], endpoint: URL) async throws -> PushedAuthorizationResponse {
        var form = parameters
        if form.contains(where: { $0.name == "request_uri" }) {
            throw OIDCError(.invalidRequestParameter, "a pushed authorization request cannot carry request_uri (RFC 9126 §2.1)")
        }
        if let dpop {
            if let given = form.first(where: { $0.name == "dpop_jkt" }) {
                guard given.value == dpop.key.thumbprint else {
                    throw OIDCError(.invalidRequestParameter, "dpop_jkt differs from the DPoP key's thumbprint")
                }
            } else {
                form.append(("dpop_jkt", dpop.key.thumbprint))
            }
        }
        // Every method but client_secret_basic adds client_id to the body itself; a duplicate would be ambiguous.
        if case .clientSecretBasic = authentication {} else { form.removeAll { $0.name == "client_id" } }
        let response = try await post(form, to: endpoint, as: .pushedAuthorizationRequest, proof: false)
        return try PushedAuthorization.parse(try answer(response, from: .pushedAuthorizationRequest, accepting: [200, 201]), response: response)
    }
}
