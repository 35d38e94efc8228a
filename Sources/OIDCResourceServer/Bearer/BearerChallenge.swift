#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import OIDCCore

/// The `WWW-Authenticate: Bearer` challenge and status of a refused request (RFC 6750 §3).
///
/// | situation | error | status |
/// |---|---|---|
/// | no token | none | 401 |
/// | malformed request | `invalid_request` | 400 |
/// | token invalid, expired, revoked, inactive, wrong audience or type | `invalid_token` | 401 |
/// | token lacks a required scope or `authorization_details` type (RFC 9396) | `insufficient_scope` (with `scope`) | 403 |
public struct BearerChallenge: Sendable, Hashable, CustomStringConvertible {
    /// The RFC 6750 §3.1 error codes.
    public enum ErrorCode: String, Sendable, Hashable {
        /// 400: the request is malformed.
        case invalidRequest = "invalid_request"
        /// 401: the token is expired, revoked, malformed or invalid.
        case invalidToken = "invalid_token"
        /// 403: the token lacks a required scope.
        case insufficientScope = "insufficient_scope"
    }

    /// The error code, or `nil` when the request had no token (RFC 6750 §3.1).
    public let error: ErrorCode?
    /// `error_description` (printable ASCII; quotes and backslashes removed).
    public let errorDescription: String?
    /// `scope`: the scopes the resource requires (with `insufficient_scope`, or always when set).
    public let scope: [String]
    /// `realm`, if any.
    public let realm: String?
    /// `resource_metadata` (RFC 9728 §5.1); set with ``advertising(resourceMetadata:)``.
    public private(set) var resourceMetadata: String? = nil

    /// A challenge from its parts.
    public init(error: ErrorCode?, errorDescription: String? = nil, scope: Set<String> = [], realm: String? = nil) {
        self.error = error
        self.errorDescription = errorDescription.map(Self.quotable)
        self.scope = scope.sorted().filter(Self.isScopeToken)
        self.realm = realm.map(Self.quotable)
    }

    /// The challenge for an error of this module or of ``AccessTokenValidator`` /
    /// ``TokenIntrospector``: `.missingBearerToken` gives a bare challenge,
    /// `.invalidBearerRequest` `invalid_request`, `.insufficientScope` and
    /// `.insufficientAuthorizationDetails` `insufficient_scope` (403) with `requiredScopes`, and everything else `invalid_token`.
    public init(error: OIDCError, requiredScopes: Set<String> = [], realm: String? = nil) {
        switch error.code {
        case .missingBearerToken:
            self.init(error: nil, scope: requiredScopes, realm: realm)
        case .invalidBearerRequest:
            self.init(error: .invalidRequest, errorDescription: error.reason, realm: realm)
        case .insufficientScope, .insufficientAuthorizationDetails:
            self.init(error: .insufficientScope, errorDescription: error.reason, scope: requiredScopes, realm: realm)
        default:
            self.init(error: .invalidToken, errorDescription: Self.publicDescription(of: error), realm: realm)
        }
    }

    /// The HTTP status: 400, 401 or 403.
    public var status: Int {
        switch error {
        case .invalidRequest: return 400
        case .insufficientScope: return 403
        case .invalidToken, nil: return 401
        }
    }

    /// The `WWW-Authenticate` field value, e.g. `Bearer realm="api", error="invalid_token", error_description="..."`.
    public var headerValue: String {
        var parameters: [String] = []
        if let realm { parameters.append("realm=\"\(realm)\"") }
        if let error { parameters.append("error=\"\(error.rawValue)\"") }
        if let errorDescription, error != nil { parameters.append("error_description=\"\(errorDescription)\"") }
        if !scope.isEmpty { parameters.append("scope=\"\(scope.joined(separator: " "))\"") }
        if let resourceMetadata { parameters.append("resource_metadata=\"\(resourceMetadata)\"") }
        return parameters.isEmpty ? "Bearer" : "Bearer " + parameters.joined(separator: ", ")
    }

    /// The header value.
    public var description: String { headerValue }

    /// This challenge with `resource_metadata="URL"` (RFC 9728 §5.1); a URL a quoted string cannot carry is left out.
    public func advertising(resourceMetadata url: URL) -> BearerChallenge {
        var challenge = self
        challenge.resourceMetadata = ResourceMetadataParameter.quoted(url)
        return challenge
    }

    /// A short description of why a token was refused, without internal detail.
    static func publicDescription(of error: OIDCError) -> String {
        switch error.code {
        case .expired: return "the access token expired"
        case .inactiveToken: return "the access token is not active"
        case .audienceMismatch: return "the access token is not meant for this resource"
        case .unexpectedTokenType: return "the token is not an access token"
        default: return "the access token is invalid"
        }
    }

    /// `error_description` and `realm` characters: %x20-21 / %x23-5B / %x5D-7E (RFC 6750 §3), at most 200.
    static func quotable(_ text: String) -> String {
        String(String.UnicodeScalarView(text.unicodeScalars.filter { (0x20...0x7E).contains($0.value) && $0 != "\"" && $0 != "\\" }).prefix(200))
    }

    /// `scope-token = 1*( %x21 / %x23-5B / %x5D-7E )` (RFC 6749 §3.3).
    static func isScopeToken(_ text: String) -> Bool {
        !text.isEmpty && text.unicodeScalars.allSatisfy { (0x21...0x7E).contains($0.value) && $0 != "\"" && $0 != "\\" }
    }
}
