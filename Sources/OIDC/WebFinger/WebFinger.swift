import JOSE

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Issuer discovery with WebFinger (OpenID Connect Discovery 1.0 §2, RFC 7033): from an identifier the user
/// typed (`acct:user@host`, `user@host`, or an https URL) to the issuer of its OpenID provider.
///
/// The identifier is the user's, so every host it leads to is checked with a ``/OIDCCore/RemoteFetchPolicy`` before any
/// request: the WebFinger host, the issuer the answer names and (with
/// ``OIDCClient/discover(webFinger:authentication:transport:configuration:fetchPolicy:)``) the endpoints of that
/// issuer's discovery document. By default only public hosts on port 443 pass; a refusal is
/// `webfinger_host_refused`, and an application admits its own test or internal providers by name
/// (``/OIDCCore/RemoteFetchPolicy/allowedHosts``, ``/OIDCCore/RemoteFetchPolicy/admit``).
///
/// The query goes to `https://HOST[:PORT]/.well-known/webfinger` (never http, loopback included); the issuer
/// it answers must be an https URL (an `http` `href` is refused even on 127.0.0.1), and is then discovered with
/// the usual exact-issuer check. An unusable answer is never quoted in the error's reason (it may come from an
/// internal service): the observer's event carries a redacted excerpt in ``/OIDCCore/OIDCEvent/detail``.
/// Members of the answer other than `links` (and a link's `rel` and `href`) are ignored, as RFC 7033 says.
public enum WebFinger {
    /// The `rel` of the issuer link (OpenID Connect Discovery §2).
    package static let issuerRelation = "http://openid.net/specs/connect/1.0/issuer"

    /// An identifier normalized as OpenID Connect Discovery §2.1 says: the `resource` to ask about and the
    /// host (with its port) to ask.
    package struct Query: Sendable, Hashable {
        /// The normalized identifier, sent as `resource` (e.g. `acct:alice@example.com`, `https://example.com/alice`).
        package let resource: String
        /// `host[:port]` of the WebFinger server.
        package let host: String
        /// `https://HOST/.well-known/webfinger?resource=...&rel=...`.
        package let url: URL

        /// Normalizes `identifier` (OpenID Connect Discovery §2.1.2): `acct:` URIs and https URLs are kept (a
        /// URL's fragment removed); `user@host` becomes `acct:user@host`; a bare host (or host and path) becomes
        /// an https URL.
        /// - Throws: ``OIDCError`` `.webFingerInvalidIdentifier`: empty, an XRI (`=`, `@`, `!`), another scheme
        ///   (`http` included), no host, or a host with a user part, a path or a query.
        package init(identifier: String) throws {
            func fail(_ reason: String) -> OIDCError { OIDCError(.webFingerInvalidIdentifier, "the WebFinger identifier \(reason)") }
            let input = identifier
            guard !input.isEmpty else { throw fail("is empty") }
            guard let first = input.first, !"=@!".contains(first) else { throw fail("is an XRI, which is not supported") }
            guard !input.unicodeScalars.contains(where: { $0.value < 0x21 || $0.value == 0x7F }) else { throw fail("holds spaces or control characters") }
            let lowered = input.lowercased()
            let hasScheme: Bool = {
                guard let colon = input.firstIndex(of: ":") else { return false }
                let scheme = input[..<colon]
                // `host:port` and `user@host:port` have no scheme: a scheme is letters before any '@', '/' or '.'.
                return !scheme.contains("@") && !scheme.contains(".") && !scheme.contains("/")
                    && !(input[input.index(after: colon)...].first?.isNumber ?? false)
            }()
            var resource: String
            if lowered.hasPrefix("acct:") {
                resource = "acct:" + input.dropFirst(5)
            } else if hasScheme {
                guard lowered.hasPrefix("https://") else { throw fail("has a scheme other than acct: or https:") }
                resource = input
            } else if input.contains("@") {
                resource = "acct:" + input
            } else {
                resource = "https://" + input
            }
            let host: String
            if resource.hasPrefix("acct:") {
                let account = resource.dropFirst(5)
                guard let at = account.lastIndex(of: "@"), at != account.startIndex else { throw fail("has no user@host") }
                host = String(account[account.index(after: at)...])
            } else {
                if let hash = resource.firstIndex(of: "#") { resource = String(resource[..<hash]) }
                guard let url = URL(string: resource), let name = url.host, !name.isEmpty, url.user == nil, url.password == nil else {
                    throw fail("is not an https URL with a host")
                }
                host = url.port.map { "\(name):\($0)" } ?? name
            }
            guard !host.isEmpty, !host.contains(where: { "/?#@\\".contains($0) }),
                let url = URL(
                    string: "https://\(host)/.well-known/webfinger?resource=\(FormURLEncoding.encode(resource))&rel="
                        + FormURLEncoding.encode(WebFinger.issuerRelation)),
                url.host != nil
            else {
                throw fail("names no usable host")
            }
            self.resource = resource
            self.host = host
            self.url = url
        }
    }

    /// Asks `identifier`'s WebFinger server for its OpenID provider's issuer.
    /// - Parameters:
    ///   - identifier: `acct:user@host[:port]`, `user@host[:port]`, or an https URL.
    ///   - transport: the HTTP transport (it must trust the server's TLS certificate).
    ///   - observer: receives one ``/OIDCCore/OIDCEvent/Kind/discovery`` event; on failure its ``/OIDCCore/OIDCEvent/detail`` says
    ///     why the policy refused or what the unusable answer was.
    ///   - fetchPolicy: which hosts may be asked, and may be named as the issuer (default: public hosts on 443).
    /// - Returns: the issuer (an https URL on a host the policy admits), not yet discovered.
    /// - Throws: ``/OIDCCore/OIDCError`` `.webFingerHostRefused` before any request (or for the issuer named),
    ///   `.webFingerInvalidIdentifier`, `.webFingerNoIssuer`.
    public static func issuer(
        for identifier: String, transport: any HTTPTransport, observer: (any OIDCObserver)? = nil,
        fetchPolicy: RemoteFetchPolicy = .publicHostsOnly
    ) async throws -> String {
        let query = try Query(identifier: identifier)
        var diagnostic: String?
        return try await observer.observe(.discovery, origin: OIDCEvent.origin(of: query.url), detail: diagnostic) {
            try await fetchPolicy.check(
                query.url, code: .webFingerHostRefused, what: "the WebFinger host", endpoint: .webFinger,
                diagnostic: &diagnostic)
            var fetch = EndpointFetch(
                endpoint: .webFinger, issuer: nil, transportFailure: .webFingerTransportFailed,
                invalidBody: .webFingerInvalidResponse, maxBodyBytes: 64 * 1024)
            fetch.quotesBody = false
            let response = try await fetch.send(
                TransportRequest(url: query.url, headers: ["Accept": "application/jrd+json, application/json"]),
                via: transport)
            let object: JSONObject
            do {
                object = try fetch.object(from: response)
            } catch {
                diagnostic = fetch.diagnostic(for: response)
                throw error
            }
            let issuer = try issuer(in: object)
            if let url = URL(string: issuer) {
                try await fetchPolicy.check(
                    url, code: .webFingerHostRefused, what: "the issuer the WebFinger answer names",
                    endpoint: .webFinger, diagnostic: &diagnostic)
            }
            return issuer
        }
    }

    /// The issuer a WebFinger answer (JRD) names: the `href` of its first link whose `rel` is ``issuerRelation``.
    /// - Throws: ``OIDCError`` `.webFingerInvalidResponse` (`links` not an array of objects), `.webFingerNoIssuer`,
    ///   `.webFingerInsecureIssuer` (not https, or not a URL with a host).
    package static func issuer(in answer: JSONObject) throws -> String {
        guard let linksValue = answer["links"] else {
            throw OIDCError(.webFingerNoIssuer, "the WebFinger answer has no links", endpoint: .webFinger)
        }
        guard let links = linksValue.arrayValue else {
            throw OIDCError(.webFingerInvalidResponse, "the WebFinger answer's links is not an array", endpoint: .webFinger)
        }
        for link in links {
            guard let object = link.objectValue else {
                throw OIDCError(.webFingerInvalidResponse, "a link of the WebFinger answer is not an object", endpoint: .webFinger)
            }
            guard object["rel"]?.stringValue == issuerRelation else { continue }
            guard let href = object["href"]?.stringValue else {
                throw OIDCError(.webFingerInvalidResponse, "the WebFinger issuer link has no href string", endpoint: .webFinger)
            }
            guard href.lowercased().hasPrefix("https://"), let url = URL(string: href), let host = url.host, !host.isEmpty else {
                throw OIDCError(.webFingerInsecureIssuer, "the WebFinger answer names an issuer that is not an https URL", endpoint: .webFinger)
            }
            return href
        }
        throw OIDCError(.webFingerNoIssuer, "the WebFinger answer names no OpenID Connect issuer", endpoint: .webFinger)
    }
}

extension OIDCClient {
    /// A client for the provider that `identifier`'s WebFinger server names (``WebFinger/issuer(for:transport:observer:fetchPolicy:)``),
    /// found through its discovery document with the exact-issuer check of ``discover(issuer:authentication:transport:configuration:)``.
    /// Every endpoint of that document the client calls (all of `ProviderMetadata.callableEndpoints` but the
    /// browser's: authorization, end-session, check-session) must be on a host `fetchPolicy` admits: the document
    /// is the remote party's, as is the issuer.
    /// - Parameters:
    ///   - identifier: `acct:user@host[:port]`, `user@host[:port]`, or an https URL.
    ///   - authentication: how the client authenticates at the token endpoint.
    ///   - transport: the HTTP transport.
    ///   - configuration: clock, leeway, accepted token types, algorithms, key cache, observer.
    ///   - fetchPolicy: the hosts the WebFinger query, the issuer and its endpoints may be on (default: public hosts on 443).
    /// - Throws: ``/OIDCCore/OIDCError``: the WebFinger errors, then the discovery errors; `.webFingerHostRefused` naming the
    ///   endpoint (``/OIDCCore/OIDCError/endpoint``) on a refused host.
    public static func discover(
        webFinger identifier: String, authentication: ClientAuthentication, transport: any HTTPTransport,
        configuration: Configuration = Configuration(),
        fetchPolicy: RemoteFetchPolicy = .publicHostsOnly
    ) async throws -> OIDCClient {
        let issuer = try await WebFinger.issuer(for: identifier, transport: transport, observer: configuration.observer, fetchPolicy: fetchPolicy)
        let metadata = try await Discovery.fetch(
            issuer: issuer, transport: transport, observer: configuration.observer,
            profile: configuration.profile)
        let browserOnly: Set<ProviderEndpoint> = [.authorization, .endSession, .checkSessionIframe]
        var admitted: Set<String> = []
        for (endpoint, url) in metadata.callableEndpoints where !browserOnly.contains(endpoint) {
            guard let url, let origin = OIDCEvent.origin(of: url), !admitted.contains(origin) else { continue }
            var diagnostic: String?
            do {
                try await fetchPolicy.check(
                    url, code: .webFingerHostRefused, what: "the \(endpoint) of the provider the WebFinger answer names",
                    endpoint: endpoint, diagnostic: &diagnostic)
            } catch {
                configuration.observer?.record(
                    OIDCEvent(
                        kind: .discovery, outcome: .failure(code: Observation.code(of: error)),
                        origin: origin, detail: diagnostic))
                throw error
            }
            admitted.insert(origin)
        }
        return try OIDCClient(metadata: metadata, authentication: authentication, transport: transport, configuration: configuration)
    }
}
