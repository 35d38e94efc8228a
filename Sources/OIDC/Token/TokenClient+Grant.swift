import JOSE

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The grants at the token endpoint: authorization code, refresh, client credentials and any other `grant_type`.
extension TokenClient {
    /// Parameter names a grant request may not set itself: the grant type and the
    /// client authentication belong to the client.
    static let reservedGrantParameters: Set<String> = [
        "grant_type", "client_id", "client_secret", "client_assertion",
        "client_assertion_type",
    ]

    /// Exchanges an authorization code, with its PKCE verifier, for tokens; `resources` ask for tokens for those
    /// resources (RFC 8707 §2.2).
    /// - Throws: ``/OIDCCore/OIDCError`` `.invalidTokenRequest` when an additional parameter would override a standard one,
    ///   `.invalidResourceIndicator`, and the token endpoint's errors (`.oauthError`).
    public func exchangeCode(
        _ code: String, redirectURI: URL, codeVerifier: String?, resources: [URL] = [],
        additionalParameters: [(name: String, value: String)] = [],
        additionalHeaders: HeaderFields = [:]
    ) async throws -> TokenResponse {
        var parameters: [(name: String, value: String)] = [
            ("grant_type", "authorization_code"), ("code", code),
            ("redirect_uri", redirectURI.absoluteString),
        ]
        if let codeVerifier { parameters.append(("code_verifier", codeVerifier)) }
        return try await requestTokens(
            parameters, extra: try ResourceIndicator.parameters(for: resources) + additionalParameters,
            headers: additionalHeaders)
    }

    /// Uses a refresh token; `scope` may narrow the granted scope and `resources` ask for an access token for
    /// those resources (RFC 8707 §2.2).
    /// - Throws: ``/OIDCCore/OIDCError`` as ``exchangeCode(_:redirectURI:codeVerifier:resources:additionalParameters:additionalHeaders:)``;
    ///   `.refreshTokenSpent` when a check refuses an answer that rotated the refresh token.
    public func refresh(
        _ refreshToken: String, scope: String? = nil, resources: [URL] = [],
        additionalParameters: [(name: String, value: String)] = [],
        additionalHeaders: HeaderFields = [:]
    ) async throws -> TokenResponse {
        var parameters: [(name: String, value: String)] = [("grant_type", "refresh_token"), ("refresh_token", refreshToken)]
        if let scope { parameters.append(("scope", scope)) }
        return try await requestTokens(
            parameters, extra: try ResourceIndicator.parameters(for: resources) + additionalParameters,
            headers: additionalHeaders)
    }

    /// Requests tokens with any `grant_type` (RFC 6749 §4.5) and the configured client authentication;
    /// `resources` become RFC 8707 `resource` parameters.
    /// - Throws: ``/OIDCCore/OIDCError`` `.invalidTokenRequest` when a parameter would set the grant type or the client
    ///   authentication, `.invalidResourceIndicator`, and the token endpoint's errors.
    public func requestToken(
        grantType: String, parameters: [(name: String, value: String)] = [], resources: [URL] = [],
        additionalHeaders: HeaderFields = [:]
    ) async throws -> TokenResponse {
        guard !grantType.isEmpty else { throw OIDCError(.invalidTokenRequest, "the grant type is empty") }
        for (name, _) in parameters where Self.reservedGrantParameters.contains(name) {
            throw OIDCError(.invalidTokenRequest, "parameter \"\(name)\" belongs to the grant type or the client authentication")
        }
        let all = [("grant_type", grantType)] + parameters + (try ResourceIndicator.parameters(for: resources))
        return try await requestTokens(all, extra: [], headers: additionalHeaders)
    }

    /// The client credentials grant (RFC 6749 §4.4), with an optional `scope`, RFC 8707 `resource` indicators
    /// and an `audience`, the parameter some providers use instead.
    /// - Throws: ``/OIDCCore/OIDCError`` as ``requestToken(grantType:parameters:resources:additionalHeaders:)``.
    public func clientCredentials(
        scope: String? = nil, resources: [URL] = [], audience: String? = nil,
        additionalParameters: [(name: String, value: String)] = []
    ) async throws -> TokenResponse {
        var parameters: [(name: String, value: String)] = []
        if let scope { parameters.append(("scope", scope)) }
        if let audience { parameters.append(("audience", audience)) }
        try Self.checkExtra(additionalParameters, against: ["scope", "audience", "resource"])
        return try await requestToken(grantType: "client_credentials", parameters: parameters + additionalParameters, resources: resources)
    }

    /// Refuses extra parameters that a typed argument already sets.
    static func checkExtra(_ extra: [(name: String, value: String)], against typed: Set<String>) throws {
        for (name, _) in extra where typed.contains(name) {
            throw OIDCError(.invalidTokenRequest, "additional parameter \"\(name)\" would override a typed argument")
        }
    }
}
