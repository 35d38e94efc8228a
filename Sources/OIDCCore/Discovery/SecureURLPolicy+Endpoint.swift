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
    package static func checkEndpoint(_ url: URL, _ endpoint: ProviderEndpoint, issuer: String?) throws {
        let judged = verdict(url)
        if let error = judged.error(what: endpoint.rawValue, endpoint: endpoint) { throw error }
        guard case .loopbackHTTP = judged, let issuer else { return }
        guard let issuerURL = URL(string: issuer), case .loopbackHTTP = verdict(issuerURL) else {
            throw OIDCError(
                .insecureURL,
                "\(endpoint) uses http on a loopback host, but the issuer is not an http loopback issuer: "
                    + "https is required", endpoint: endpoint)
        }
    }
}
