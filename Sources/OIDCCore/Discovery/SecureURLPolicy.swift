#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The transport-security rule for issuers and the URLs they publish:
/// `https` always; `http` only for loopback hosts (`localhost`, 127.0.0.0/8, `::1`).
public enum SecureURLPolicy {
    /// Whether `host` is a loopback host: exactly `localhost`, an IPv4 address in 127.0.0.0/8 or
    /// `::1` (with or without brackets). Names *under* `localhost` (`app.localhost`) are not:
    /// their resolution is up to the resolver, so they get no `http` exception. The one loopback
    /// rule of the library (issuers, endpoints, authorization URLs, session origins).
    package static func isLoopback(host: String) -> Bool {
        var host = host.lowercased()
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        if host == "localhost" { return true }
        if host == "::1" || host == "0:0:0:0:0:0:0:1" { return true }
        let parts = host.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 4, parts.allSatisfy({ !$0.isEmpty && $0.count <= 3 && $0.allSatisfy(\.isASCII) && UInt8($0) != nil }) else {
            return false
        }
        return parts[0] == "127"
    }

    /// Parses `text` as an absolute `https` URL (or `http` on loopback) with a host.
    /// - Parameters:
    ///   - text: the URL as written (an issuer, an endpoint).
    ///   - what: what the URL is, for the error reason (e.g. "the issuer").
    /// - Throws: ``OIDCError`` `.invalidIssuerURL` or `.insecureURL`.
    public static func check(_ text: String, what: String) throws -> URL {
        guard let url = URL(string: text) else {
            throw OIDCError(.invalidIssuerURL, "\(what) is not an absolute URL with a host")
        }
        try check(url, what: what)
        return url
    }

    /// Checks an already parsed URL.
    /// - Throws: ``OIDCError`` `.invalidIssuerURL` or `.insecureURL`.
    package static func check(_ url: URL, what: String) throws {
        if let error = verdict(url).error(what: what, endpoint: nil) { throw error }
    }

    /// What the rule says about a URL, before any issuer is considered.
    package enum Verdict {
        case https
        case loopbackHTTP
        case remoteHTTP
        case otherScheme(String)
        case notAbsolute

        /// The error for a URL the rule refuses on its own (`nil` for https and loopback http).
        package func error(what: String, endpoint: ProviderEndpoint?) -> OIDCError? {
            switch self {
            case .https, .loopbackHTTP:
                return nil
            case .remoteHTTP:
                return OIDCError(.insecureURL, "\(what) uses http for a host that is not loopback; https is required", endpoint: endpoint)
            case .otherScheme(let scheme):
                return OIDCError(.invalidIssuerURL, "\(what) has the scheme \"\(scheme.prefix(16))\"; https is required", endpoint: endpoint)
            case .notAbsolute:
                return OIDCError(.invalidIssuerURL, "\(what) is not an absolute URL with a host", endpoint: endpoint)
            }
        }
    }

    /// The one place the scheme and host of a URL are judged.
    package static func verdict(_ url: URL) -> Verdict {
        guard let scheme = url.scheme?.lowercased(), let host = url.host(percentEncoded: false), !host.isEmpty else { return .notAbsolute }
        switch scheme {
        case "https": return .https
        case "http": return isLoopback(host: host) ? .loopbackHTTP : .remoteHTTP
        default: return .otherScheme(scheme)
        }
    }
}
