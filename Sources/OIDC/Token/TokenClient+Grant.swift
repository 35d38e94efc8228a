#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import JOSE

/// Any grant at the token endpoint: the generic request, client credentials, and the
/// RFC 8707 `resource` forms of the code and refresh grants.
extension TokenClient {
    /// Parameter names a grant request may not set itself: the grant type and the
    /// client authentication belong to the client.
    static let reservedGrantParameters: Set<String> = ["grant_type", "client_id", "client_secret", "client_assertion",
                                                       "client_assertion_type"]

    /// Requests tokens with any `grant_type` (RFC 6749 §4.5), the given parameters and
    /// the configured client authentication; `resources` become RFC 8707 `resource` parameters.
    /// - Throws: ``OIDCError`` `.invalidTokenRequest` when a parameter would override the grant
    ///   type or the client authentication, `.invalidResourceIndicator`, and every token-endpoint error.
    public func requestToken(grantType: String, parameters: [(name: String, value: String)] = [], resources: [URL] = [],
                             additionalHeaders: HeaderFields = [:]) async throws -> TokenResponse {
        guard !grantType.isEmpty else { throw OIDCError(.invalidTokenRequest, "the grant type is empty") }
        for (name, _) in parameters where Self.reservedGrantParameters.contains(name) {
            throw OIDCError(.invalidTokenRequest, "parameter \"\(name)\" belongs to the grant type or the client authentication")
        }
        let all = [("grant_type", grantType)] + parameters + (try ResourceIndicator.parameters(for: resources))
        return try await requestTokens(all, extra: [], headers: additionalHeaders)
    }

    /// The client credentials grant (RFC 6749 §4.4), with optional `scope`, RFC 8707
    /// `resource` indicators and an `audience` (a parameter some providers use instead).
    public func clientCredentials(scope: String? = nil, resources: [URL] = [], audience: String? = nil,
                                  additionalParameters: [(name: String, value: String)] = []) async throws -> TokenResponse {
        var parameters: [(name: String, value: String)] = []
        if let scope { parameters.append(("scope", scope)) }
        if let audience { parameters.append(("audience", audience)) }
        try Self.checkExtra(additionalParameters, against: ["scope", "audience", "resource"])
        return try await requestToken(grantType: "client_credentials", parameters: parameters + additionalParameters, resources: resources)
    }

    /// Exchanges an authorization code, asking for tokens for the given resources (RFC 8707 §2.2).
    public func exchangeCode(_ code: String, redirectURI: URL, codeVerifier: String?, resources: [URL],
                             additionalParameters: [(name: String, value: String)] = [],
                             additionalHeaders: HeaderFields = [:]) async throws -> TokenResponse {
        try await exchangeCode(code, redirectURI: redirectURI, codeVerifier: codeVerifier,
                               additionalParameters: try ResourceIndicator.parameters(for: resources) + additionalParameters,
                               additionalHeaders: additionalHeaders)
    }

    /// Uses a refresh token, asking for an access token for the given resources (RFC 8707 §2.2).
    public func refresh(_ refreshToken: String, scope: String? = nil, resources: [URL],
                        additionalParameters: [(name: String, value: String)] = [],
                        additionalHeaders: HeaderFields = [:]) async throws -> TokenResponse {
        try await refresh(refreshToken, scope: scope,
                          additionalParameters: try ResourceIndicator.parameters(for: resources) + additionalParameters,
                          additionalHeaders: additionalHeaders)
    }

    /// Refuses extra parameters that a typed argument already sets.
    static func checkExtra(_ extra: [(name: String, value: String)], against typed: Set<String>) throws {
        for (name, _) in extra where typed.contains(name) {
            throw OIDCError(.invalidTokenRequest, "additional parameter \"\(name)\" would override a typed argument")
        }
    }
}
