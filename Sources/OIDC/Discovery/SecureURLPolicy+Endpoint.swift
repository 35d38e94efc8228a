#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension SecureURLPolicy {
    /// Checks a URL the library is about to call (or send a browser to) for `endpoint`
    /// of the provider `issuer`: `https` always; `http` only when the URL's host is
    /// loopback **and** the issuer itself uses `http` on a loopback host. A provider
    /// whose issuer is `https` (or a remote host) therefore cannot downgrade any
    /// endpoint to cleartext, not even to `http://127.0.0.1`.
    ///
    /// - Parameters:
    ///   - url: the endpoint URL.
    ///   - endpoint: which endpoint it is, named in the error.
    ///   - issuer: the provider's issuer; `nil` when the caller gave the URL directly
    ///     without an issuer: then the URL's own host decides (loopback http only).
    /// - Throws: ``OIDCError`` `.insecureURL` or `.invalidIssuerURL`, with ``OIDCError/endpoint`` set.
    public static func checkEndpoint(_ url: URL, _ endpoint: ProviderEndpoint, issuer: String?) throws {
        guard let scheme = url.scheme?.lowercased(), let host = url.host(percentEncoded: false), !host.isEmpty else {
            throw OIDCError(.invalidIssuerURL, "\(endpoint) is not an absolute URL with a host", endpoint: endpoint)
        }
        switch scheme {
        case "https":
            return
        case "http" where isLoopback(host: host):
            guard let issuer else { return }
            guard let issuerURL = URL(string: issuer), issuerURL.scheme?.lowercased() == "http",
                  let issuerHost = issuerURL.host(percentEncoded: false), isLoopback(host: issuerHost) else {
                throw OIDCError(.insecureURL, "\(endpoint) uses http on a loopback host, but the issuer is not an http loopback issuer: "
                                + "https is required", endpoint: endpoint)
            }
            return
        case "http":
            throw OIDCError(.insecureURL, "\(endpoint) uses http for a host that is not loopback; https is required", endpoint: endpoint)
        default:
            throw OIDCError(.invalidIssuerURL, "\(endpoint) has the scheme \"\(scheme.prefix(16))\"; https is required", endpoint: endpoint)
        }
    }
}
