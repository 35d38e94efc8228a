import OIDCCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
/// One `WWW-Authenticate` challenge of a protected resource, well-formed by construction: `Bearer` (RFC 6750 §3)
/// or `DPoP` (RFC 9449 §7.1, with `algs`). ``AccessTokenRefusal`` builds the ones a refused request gets, for JWT
/// access tokens and introspection alike.
public struct ResourceChallenge: Sendable, Hashable, CustomStringConvertible {
    /// The error codes of both schemes.
    public enum ErrorCode: String, Sendable, Hashable {
        /// 400: the request is malformed (RFC 6750 §3.1).
        case invalidRequest = "invalid_request"
        /// 401: the token is expired, revoked, malformed, invalid, or presented with the wrong scheme.
        case invalidToken = "invalid_token"
        /// 403: the token lacks a required scope.
        case insufficientScope = "insufficient_scope"
        /// 401: the DPoP proof is missing or invalid (RFC 9449 §7.1).
        case invalidDPoPProof = "invalid_dpop_proof"
        /// 401: the server requires a nonce in the DPoP proof; it is in the `DPoP-Nonce` field (RFC 9449 §9).
        case useDPoPNonce = "use_dpop_nonce"
    }

    /// The scheme the challenge is for.
    public let scheme: AuthorizationScheme
    /// The error code, or `nil` for a challenge that only names the scheme (no or unusable credentials).
    public let error: ErrorCode?
    /// `error_description` (printable ASCII; quotes and backslashes removed; at most 200 characters).
    public let errorDescription: String?
    /// `scope`: the scopes the resource requires.
    public let scope: [String]
    /// `realm`, if any.
    public let realm: String?
    /// `algs` of a `DPoP` challenge: the proof algorithms accepted (empty for `Bearer`).
    public let algorithms: [String]
    /// `resource_metadata` (RFC 9728 §5.1): the URL of the resource's metadata document; set with
    /// ``advertising(resourceMetadata:)``.
    public private(set) var resourceMetadata: String? = nil

    /// A challenge from its parts (`algorithms` is kept for `DPoP` only).
    public init(
        scheme: AuthorizationScheme, error: ErrorCode?, errorDescription: String? = nil, scope: Set<String> = [],
        realm: String? = nil, algorithms: [String] = []
    ) {
        self.scheme = scheme
        self.error = error
        self.errorDescription = errorDescription.map(Self.quotable)
        self.scope = scope.sorted().filter(Self.isScopeToken)
        self.realm = realm.map(Self.quotable)
        self.algorithms = scheme == .dpop ? algorithms.filter(Self.isScopeToken) : []
    }

    /// The `WWW-Authenticate` field value, e.g. `DPoP error="use_dpop_nonce", error_description="...", algs="ES256 EdDSA"`.
    public var headerValue: String {
        var parameters: [String] = []
        if let realm { parameters.append("realm=\"\(realm)\"") }
        if let error { parameters.append("error=\"\(error.rawValue)\"") }
        if let errorDescription, error != nil { parameters.append("error_description=\"\(errorDescription)\"") }
        if !scope.isEmpty { parameters.append("scope=\"\(scope.joined(separator: " "))\"") }
        if !algorithms.isEmpty { parameters.append("algs=\"\(algorithms.joined(separator: " "))\"") }
        if let resourceMetadata { parameters.append("resource_metadata=\"\(resourceMetadata)\"") }
        return parameters.isEmpty ? scheme.rawValue : scheme.rawValue + " " + parameters.joined(separator: ", ")
    }

    /// The header value.
    public var description: String { headerValue }

    /// This challenge with `resource_metadata="URL"` (RFC 9728 §5.1), so a client can find the authorization
    /// servers; a URL with characters a quoted string cannot carry (`"`, `\\`, controls) is left out.
    public func advertising(resourceMetadata url: URL) -> ResourceChallenge {
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

/// The `resource_metadata` value of every challenge builder.
enum ResourceMetadataParameter {
    /// The URL text when it can stand in a quoted string unchanged, else `nil`.
    static func quoted(_ url: URL) -> String? {
        let text = url.absoluteString
        return ResourceChallenge.quotable(text) == text && !text.isEmpty ? text : nil
    }
}
