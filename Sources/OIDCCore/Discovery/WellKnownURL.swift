#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The path insertion rule of RFC 8414 §3.1 and RFC 9728 §3.1, the one place both build their
/// well-known URLs: the well-known segment goes between the host (and port) and the identifier's
/// path, a terminating `/` of the path is removed first, and a query is kept after the path.
/// `https://as.example/tenant` gives `https://as.example/.well-known/oauth-authorization-server/tenant`;
/// `https://as.example` and `https://as.example/` both give `https://as.example/.well-known/oauth-authorization-server`.
package enum WellKnownURL {
    /// The well-known URL of `identifier` for `suffix` (e.g. `oauth-authorization-server`).
    /// - Parameters:
    ///   - identifier: an issuer or resource identifier (checked by ``SecureURLPolicy``: https, or http on loopback).
    ///   - suffix: the registered well-known name.
    ///   - what: what the identifier is, for the error reason.
    /// - Throws: ``OIDCError`` `.invalidIssuerURL` (a fragment, userinfo, or no URL), `.insecureURL`.
    package static func url(for identifier: String, suffix: String, what: String) throws -> URL {
        let url = try SecureURLPolicy.check(identifier, what: what)
        guard var components = URLComponents(url: url, resolvingAgainstBaseURL: false),
            components.percentEncodedFragment == nil, components.percentEncodedUser == nil, components.percentEncodedPassword == nil
        else {
            throw OIDCError(.invalidIssuerURL, "\(what) has a fragment or user information")
        }
        var path = components.percentEncodedPath
        while path.hasSuffix("/") { path.removeLast() }
        components.percentEncodedPath = "/.well-known/" + suffix + path
        guard let result = components.url else {
            throw OIDCError(.invalidIssuerURL, "\(what) does not form a well-known URL")
        }
        return result
    }
}
