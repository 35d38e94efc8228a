import JOSE

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A token type identifier of RFC 8693 §3 (`urn:ietf:params:oauth:token-type:...`), or any other URI.
public struct TokenTypeIdentifier: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
    /// The URI.
    public let rawValue: String
    /// Wraps a token type URI.
    public init(rawValue: String) { self.rawValue = rawValue }
    /// The URI.
    public var description: String { rawValue }

    /// An OAuth 2.0 access token.
    public static let accessToken = TokenTypeIdentifier(rawValue: "urn:ietf:params:oauth:token-type:access_token")
    /// An OAuth 2.0 refresh token.
    public static let refreshToken = TokenTypeIdentifier(rawValue: "urn:ietf:params:oauth:token-type:refresh_token")
    /// An OpenID Connect ID Token.
    public static let idToken = TokenTypeIdentifier(rawValue: "urn:ietf:params:oauth:token-type:id_token")
    /// A JWT.
    public static let jwt = TokenTypeIdentifier(rawValue: "urn:ietf:params:oauth:token-type:jwt")
    /// A base64url-encoded SAML 1.1 assertion.
    public static let saml1 = TokenTypeIdentifier(rawValue: "urn:ietf:params:oauth:token-type:saml1")
    /// A base64url-encoded SAML 2.0 assertion.
    public static let saml2 = TokenTypeIdentifier(rawValue: "urn:ietf:params:oauth:token-type:saml2")
}

/// A token exchange request (RFC 8693 §2.1). `description` never shows the tokens.
public struct TokenExchangeRequest: Sendable, CustomStringConvertible, CustomReflectable {
    /// `subject_token`: the token that represents the party on whose behalf the request is made.
    public var subjectToken: String
    /// `subject_token_type`
    public var subjectTokenType: TokenTypeIdentifier
    /// `actor_token`: the acting party's token (delegation), if any.
    public var actorToken: String?
    /// `actor_token_type`, required with ``actorToken``.
    public var actorTokenType: TokenTypeIdentifier?
    /// `resource` indicators (absolute URIs without fragments).
    public var resources: [URL]
    /// `audience` values: logical names of the target services.
    public var audiences: [String]
    /// `scope`
    public var scope: String?
    /// `requested_token_type`
    public var requestedTokenType: TokenTypeIdentifier?

    /// Creates a request.
    public init(
        subjectToken: String, subjectTokenType: TokenTypeIdentifier, actorToken: String? = nil,
        actorTokenType: TokenTypeIdentifier? = nil, resources: [URL] = [], audiences: [String] = [], scope: String? = nil,
        requestedTokenType: TokenTypeIdentifier? = nil
    ) {
        self.subjectToken = subjectToken
        self.subjectTokenType = subjectTokenType
        self.actorToken = actorToken
        self.actorTokenType = actorTokenType
        self.resources = resources
        self.audiences = audiences
        self.scope = scope
        self.requestedTokenType = requestedTokenType
    }

    /// The form parameters (without `grant_type` and `resource`).
    /// - Throws: ``OIDCError`` `.invalidTokenRequest` for an actor token without its type or the reverse.
    func parameters() throws -> [(name: String, value: String)] {
        guard (actorToken == nil) == (actorTokenType == nil) else {
            throw OIDCError(.invalidTokenRequest, "actor_token and actor_token_type go together (RFC 8693 §2.1)")
        }
        var parameters: [(name: String, value: String)] = [
            ("subject_token", subjectToken),
            ("subject_token_type", subjectTokenType.rawValue),
        ]
        if let actorToken, let actorTokenType {
            parameters += [("actor_token", actorToken), ("actor_token_type", actorTokenType.rawValue)]
        }
        parameters += audiences.map { ("audience", $0) }
        if let scope { parameters.append(("scope", scope)) }
        if let requestedTokenType { parameters.append(("requested_token_type", requestedTokenType.rawValue)) }
        return parameters
    }

    /// e.g. `TokenExchangeRequest(subject: urn:...:access_token, actor: none, resources: 1, audiences: 0)`.
    public var description: String {
        "TokenExchangeRequest(subject: \(subjectTokenType), actor: \(actorTokenType?.rawValue ?? "none"), resources: \(resources.count), audiences: \(audiences.count))"
    }
    /// No children: `dump` shows no token.
    public var customMirror: Mirror { Mirror(self, children: [:]) }
}

/// A token exchange answer (RFC 8693 §2.2.1): the issued token (in ``tokens``'s
/// `accessToken`, whatever its type) and its `issued_token_type`.
public struct TokenExchangeResponse: Sendable, CustomStringConvertible {
    /// The token response; `tokenType` may be `N_A` when the issued token is not an access token.
    public let tokens: TokenResponse
    /// `issued_token_type`
    public let issuedTokenType: TokenTypeIdentifier

    /// e.g. `TokenExchangeResponse(urn:...:access_token, TokenResponse(...))`; never the token.
    public var description: String { "TokenExchangeResponse(\(issuedTokenType), \(tokens))" }
}

extension TokenClient {
    /// The RFC 8693 grant type.
    package static let tokenExchangeGrantType = "urn:ietf:params:oauth:grant-type:token-exchange"

    /// Exchanges a token (RFC 8693) with the configured client authentication.
    /// - Throws: ``/OIDCCore/OIDCError`` `.invalidTokenRequest`, `.invalidResourceIndicator`,
    ///   `.invalidTokenExchangeResponse` when `issued_token_type` is missing, and every token-endpoint error.
    public func exchangeToken(_ request: TokenExchangeRequest, additionalHeaders: HeaderFields = [:]) async throws -> TokenExchangeResponse {
        let tokens = try await requestToken(
            grantType: Self.tokenExchangeGrantType, parameters: try request.parameters(),
            resources: request.resources, additionalHeaders: additionalHeaders)
        guard let issued = tokens.additionalFields["issued_token_type"]?.stringValue, !issued.isEmpty else {
            throw OIDCError(
                .invalidTokenExchangeResponse, "the token exchange answer has no \"issued_token_type\" string (RFC 8693 §2.2.1)",
                httpStatus: 200)
        }
        return TokenExchangeResponse(tokens: tokens, issuedTokenType: TokenTypeIdentifier(rawValue: issued))
    }
}
