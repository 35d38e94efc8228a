#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension OAuthRequest {
    /// The URL that starts the login: `base` (an `authorization_endpoint`, or an app link /
    /// universal link) with the request's parameters appended to its query.
    ///
    /// Query items already on `base` are kept verbatim and first; none may have the name of a
    /// parameter the request sets. Values are strictly percent-encoded (only RFC 3986 unreserved
    /// characters stay as they are; a space is `%20`, `+` is `%2B`).
    /// `base` must be `https`, or `http` on a loopback host (``SecureURLPolicy/isLoopback(host:)``),
    /// and must not have a fragment (RFC 6749 §3.1).
    /// - Throws: ``OIDCError`` `.invalidAuthorizationEndpoint`, `.parameterCollision`, or any error
    ///   of ``authorizationParameters()``.
    package func authorizationURL(at base: URL) throws -> URL {
        let parameters = try authorizationParameters()
        guard var components = URLComponents(url: base, resolvingAgainstBaseURL: false) else {
            throw OIDCError(.invalidAuthorizationEndpoint, "the authorization endpoint is not a valid URL")
        }
        let scheme = components.scheme?.lowercased() ?? ""
        let host = components.host ?? ""
        guard !host.isEmpty, scheme == "https" || (scheme == "http" && SecureURLPolicy.isLoopback(host: host)) else {
            throw OIDCError(.invalidAuthorizationEndpoint, "the authorization endpoint must be an https URL (http only on a loopback host)")
        }
        guard components.percentEncodedFragment == nil else {
            throw OIDCError(.invalidAuthorizationEndpoint, "the authorization endpoint must not have a fragment (RFC 6749 §3.1)")
        }
        var query = components.percentEncodedQuery ?? ""
        if !query.isEmpty {
            let existing: [(name: String, value: String)]
            do {
                existing = try FormURLEncoding.parse(query, plusAsSpace: true)
            } catch let error as OIDCError {
                throw OIDCError(.invalidAuthorizationEndpoint, "the authorization endpoint's query: \(error.reason)")
            }
            let ours = Set(parameters.map(\.name)).union(Self.reservedParameterNames)
            if let clash = existing.first(where: { ours.contains($0.name) }) {
                throw OIDCError(.parameterCollision, "the base URL's query already has '\(clash.name.prefix(64))', which the request sets")
            }
            if !query.hasSuffix("&") { query += "&" }
        }
        components.percentEncodedQuery = query + FormURLEncoding.encode(parameters)
        guard let url = components.url else {
            throw OIDCError(.invalidAuthorizationEndpoint, "the authorization URL cannot be formed from the endpoint")
        }
        return url
    }

    /// A pending login for this request at `authorizationEndpoint`: the URL to open, and what
    /// ``PendingAuthorization/parseRedirect(_:)`` needs to check the answer.
    ///
    /// - Parameters:
    ///   - authorizationEndpoint: the provider's authorization endpoint (or an app link).
    ///   - issuer: the provider's issuer identifier, for the RFC 9207 `iss` check.
    ///   - issuerParameterSupported: the provider always sends `iss` (metadata
    ///     `authorization_response_iss_parameter_supported`); a redirect without it is then rejected.
    /// - Throws: as ``authorizationURL(at:)``; `.invalidRequestParameter` when
    ///   `issuerParameterSupported` is set without an issuer.
    ///
    /// Both arguments are required: leaving the issuer out cannot turn the RFC 9207 check off. Without an
    /// issuer, say so with ``pendingAuthorizationWithoutIssuerCheck(at:)``.
    package func pendingAuthorization(
        at authorizationEndpoint: URL, issuer: String,
        issuerParameterSupported: Bool
    ) throws -> PendingAuthorization {
        try PendingAuthorization(
            request: self, authorizationEndpoint: authorizationEndpoint, issuer: issuer,
            issuerParameterSupported: issuerParameterSupported)
    }

    /// A pending login that does not check the redirect's `iss` (RFC 9207): only for a provider whose issuer
    /// identifier is unknown (no discovery, a bare authorization endpoint). Prefer
    /// ``pendingAuthorization(at:issuer:issuerParameterSupported:)``, or ``OIDCClient``, which binds the issuer.
    /// - Parameter authorizationEndpoint: the provider's authorization endpoint (or an app link).
    /// - Throws: as ``authorizationURL(at:)``.
    package func pendingAuthorizationWithoutIssuerCheck(at authorizationEndpoint: URL) throws -> PendingAuthorization {
        try PendingAuthorization(
            request: self, authorizationEndpoint: authorizationEndpoint, issuer: nil,
            issuerParameterSupported: false)
    }
}
