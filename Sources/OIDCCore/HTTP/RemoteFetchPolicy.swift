#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Which hosts the library may call when a URL was chosen by a user or a remote party rather than by the
/// application's own configuration: the WebFinger query for an identifier the user typed, the issuer that the
/// WebFinger answer names and the endpoints of that issuer's discovery document
/// (`OIDCClient.discover(webFinger:authentication:transport:configuration:fetchPolicy:)`), and a protected
/// resource's metadata (RFC 9728, ``ProtectedResourceDiscovery``) with the authorization server it names.
/// Without it, such a URL could make the application's server call its own internal services (request forgery).
///
/// The default (``publicHostsOnly``) admits a URL only when
/// - its port is the default https port, 443 (an explicit `:443` too; an `http` URL's port 80 is not), and
/// - its host is not an IP literal of an internal address (loopback, RFC 1918 private, RFC 6598 shared,
///   link-local, unique-local, unspecified, multicast, reserved, and IPv4-mapped, -compatible, NAT64 and 6to4
///   forms of these), in any encoding a resolver accepts (`127.1`, `2130706433`, `0x7f.0.0.1`, `[::ffff:7f00:1]`);
/// - its host is not a name reserved for local use: `localhost` and `*.localhost` (RFC 6761), `*.local`
///   (RFC 6762), `*.home.arpa` (RFC 8375), `*.internal`, or a single label (resolved through search domains);
/// - and its name resolves (`getaddrinfo`) to at least one address, none of them internal.
///
/// All of this is decided before any connection is made. **Limit:** the transport resolves the name again when
/// it connects; a name whose DNS answer changes between the two lookups (DNS rebinding, a TTL of 0) can still
/// reach an internal address. Where that matters, also restrict the server's egress (a proxy or firewall that
/// refuses internal addresses), which is the only place the connected address can be checked.
///
/// An application widens the policy explicitly, by name: ``allowedHosts`` (exact `host:port` entries admitted
/// without any other check, e.g. a test provider on `127.0.0.1:8443`), and/or ``admit``, a hook asked about
/// every refusal of the default rules. A refusal is a typed ``OIDCError`` whose code names the path
/// (`webfinger_host_refused`, `resource_metadata_host_refused`), thrown before any request is sent.
public struct RemoteFetchPolicy: Sendable {
    /// A host and a port the application admits by name.
    public struct HostPort: Sendable, Hashable, CustomStringConvertible {
        /// The host, lowercased, without brackets or a trailing dot (a name or an IP literal as written).
        public let host: String
        /// The port (1...65535).
        public let port: Int

        /// `host` on `port`.
        /// - Throws: ``OIDCError`` `.invalidFetchPolicyHost`: an empty host, a host with `/`, `@`, `?`, `#`, `%` or
        ///   spaces, or a port outside 1...65535.
        public init(host: String, port: Int) throws {
            let normalized = RemoteFetchPolicy.normalize(host)
            guard !normalized.isEmpty, !normalized.unicodeScalars.contains(where: { " /\\@?#%".unicodeScalars.contains($0) || $0.value < 0x21 }),
                (1...65535).contains(port)
            else {
                throw OIDCError(.invalidFetchPolicyHost, "a fetch policy host must be HOST:PORT with a port from 1 to 65535")
            }
            self.host = normalized
            self.port = port
        }

        /// Parses `HOST:PORT` (`[IPv6]:PORT` for IPv6), e.g. `127.0.0.1:8443`, `[::1]:8500`, `idp.internal:443`.
        /// - Throws: ``OIDCError`` `.invalidFetchPolicyHost` when there is no `:PORT` or either part is unusable.
        public init(_ text: String) throws {
            guard let colon = text.lastIndex(of: ":"), let port = Int(text[text.index(after: colon)...]) else {
                throw OIDCError(.invalidFetchPolicyHost, "a fetch policy host must be HOST:PORT with a port from 1 to 65535")
            }
            let host = String(text[..<colon])
            guard !host.contains(":") || (host.hasPrefix("[") && host.hasSuffix("]")) else {
                throw OIDCError(.invalidFetchPolicyHost, "an IPv6 fetch policy host is written [ADDRESS]:PORT")
            }
            try self.init(host: host, port: port)
        }

        /// `host:port` (`[host]:port` for IPv6).
        public var description: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }
    }

    /// Why the default rules refuse a URL; handed to ``admit``.
    public struct Refusal: Sendable, Hashable, CustomStringConvertible {
        /// The rule that refused.
        public enum Reason: Sendable, Hashable {
            /// The port is not 443.
            case port
            /// The host is an IP literal of an internal address (the kind named).
            case internalAddress(String)
            /// The host is a name reserved for local use, or a single label.
            case reservedName
            /// The name resolves to an internal address (the address and its kind named).
            case resolvesToInternalAddress(String)
            /// The name does not resolve.
            case unresolvable
            /// The URL has no usable host (none, a zone index, an unparseable form).
            case noUsableHost
        }

        /// The URL's host, lowercased, without brackets or a trailing dot.
        public let host: String
        /// The URL's port (its scheme's default when it names none).
        public let port: Int
        /// The rule that refused.
        public let reason: Reason

        /// Creates a refusal (the policy builds these; tests of an ``admit`` hook may too).
        public init(host: String, port: Int, reason: Reason) {
            self.host = host
            self.port = port
            self.reason = reason
        }

        /// The full diagnosis, with any resolved address: for the application's logs (it is what the observer's
        /// event carries), not for the user who supplied the URL.
        public var description: String { "\(target) \(diagnosis)" }

        /// The refusal as an error's reason says it: a name that resolves to an internal address and one that does
        /// not resolve read the same ("has no public address"), so the error does not map the internal network.
        package var publicReason: String {
            switch reason {
            case .resolvesToInternalAddress, .unresolvable: return "\(target) has no public address"
            default: return "\(target) \(diagnosis)"
            }
        }

        private var target: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }

        private var diagnosis: String {
            switch reason {
            case .port: return "is not on the default https port (443)"
            case .internalAddress(let kind): return "is \(kind)"
            case .reservedName: return "is a name reserved for local use or a single-label name"
            case .resolvesToInternalAddress(let detail): return "resolves to \(detail)"
            case .unresolvable: return "does not resolve"
            case .noUsableHost: return "is not a usable host"
            }
        }
    }

    /// `host:port` entries admitted without any other check (the host compared as written, case-insensitively:
    /// `127.0.0.1:8443` admits `https://127.0.0.1:8443/...`, not `https://localhost:8443/...`).
    public var allowedHosts: Set<HostPort>
    /// Asked about every URL the default rules refuse (and ``allowedHosts`` does not list); `true` admits it.
    /// `nil`: every refusal stands.
    public var admit: (@Sendable (Refusal) -> Bool)?
    /// How names are resolved (`getaddrinfo`); tests replace it.
    package var resolve: @Sendable (String) async -> [HostAddress]? = { await HostAddress.resolve($0) }

    /// The default: public hosts on port 443 only, nothing widened.
    public static var publicHostsOnly: RemoteFetchPolicy { RemoteFetchPolicy() }

    /// A policy that admits public hosts on port 443 and, besides them, `allowedHosts` and what `admit` accepts.
    public init(allowedHosts: Set<HostPort> = [], admit: (@Sendable (Refusal) -> Bool)? = nil) {
        self.allowedHosts = allowedHosts
        self.admit = admit
    }

    /// Why `url` is refused, or `nil` when it is admitted: by ``allowedHosts``, by the default rules, or by ``admit``.
    /// Resolves the host's name unless the URL is admitted or refused without it.
    public func refusal(for url: URL) async -> Refusal? {
        let (target, early) = staticVerdict(url)
        guard let target else { return early }
        if let early { return admit?(early) == true ? nil : early }
        if HostAddress(literal: target.host) != nil { return nil }  // a public IP literal
        let refusal: Refusal
        if let addresses = await resolve(target.host) {
            guard let bad = addresses.first(where: { $0.internalKind != nil }), let kind = bad.internalKind else { return nil }
            refusal = Refusal(host: target.host, port: target.port, reason: .resolvesToInternalAddress("\(bad) (\(kind))"))
        } else {
            refusal = Refusal(host: target.host, port: target.port, reason: .unresolvable)
        }
        return admit?(refusal) == true ? nil : refusal
    }

    /// The rules decided without resolving a name (``allowedHosts``, port, IP literals, reserved names, then
    /// ``admit``): for a synchronous caller that cannot resolve; ``refusal(for:)`` is the full check.
    package func refusalWithoutResolving(_ url: URL) -> Refusal? {
        let (target, early) = staticVerdict(url)
        guard target != nil, let early else { return early }
        return admit?(early) == true ? nil : early
    }

    /// Checks `url` and throws the typed refusal.
    /// - Parameters:
    ///   - code: the error code of the path (e.g. `.webFingerHostRefused`).
    ///   - what: what the URL is, for the reason (e.g. "the WebFinger host").
    ///   - endpoint: the endpoint named in the error.
    ///   - diagnostic: set to the full diagnosis (``Refusal/description``) on a refusal, for the observer's event.
    package func check(
        _ url: URL, code: OIDCError.Code, what: String, endpoint: ProviderEndpoint? = nil,
        diagnostic: inout String?
    ) async throws {
        guard let refusal = await refusal(for: url) else { return }
        diagnostic = refusal.description
        throw OIDCError(
            code,
            "\(what) \(refusal.publicReason): refused by the fetch policy (RemoteFetchPolicy; widen it by name "
                + "with allowedHosts or admit)", endpoint: endpoint)
    }

    /// The rules decided without resolving: `(target, nil)` when the name still has to be resolved or an
    /// allow-listed/public literal is admitted; `(target, refusal)` for a refusal ``admit`` may overturn;
    /// `(nil, nil)` admitted by ``allowedHosts``; `(nil, refusal)` for no usable host.
    private func staticVerdict(_ url: URL) -> (target: HostPort?, refusal: Refusal?) {
        let scheme = url.scheme?.lowercased() ?? ""
        guard let rawHost = url.host(percentEncoded: false), !rawHost.isEmpty,
            let port = url.port ?? (scheme == "https" ? 443 : scheme == "http" ? 80 : nil)
        else {
            return (nil, Refusal(host: url.host(percentEncoded: false) ?? "", port: url.port ?? 0, reason: .noUsableHost))
        }
        let host = Self.normalize(rawHost)
        guard !host.isEmpty, !host.contains("%"), let target = try? HostPort(host: host, port: port) else {
            return (nil, Refusal(host: host, port: port, reason: .noUsableHost))
        }
        if allowedHosts.contains(target) { return (nil, nil) }
        guard port == 443 else { return (target, Refusal(host: host, port: port, reason: .port)) }
        if let literal = HostAddress(literal: host) {
            return (target, literal.internalKind.map { Refusal(host: host, port: port, reason: .internalAddress($0)) })
        }
        if host.contains(":") {  // an IPv6 form inet_pton does not read
            return (target, Refusal(host: host, port: port, reason: .noUsableHost))
        }
        let reservedSuffixes = [".localhost", ".local", ".home.arpa", ".internal"]
        if !host.contains(".") || host == "localhost" || reservedSuffixes.contains(where: host.hasSuffix) {
            return (target, Refusal(host: host, port: port, reason: .reservedName))
        }
        return (target, nil)
    }

    /// Lowercased, brackets and one trailing dot removed.
    package static func normalize(_ host: String) -> String {
        var text = host.lowercased()
        if text.hasPrefix("["), text.hasSuffix("]") { text = String(text.dropFirst().dropLast()) }
        if text.hasSuffix("."), text.count > 1 { text.removeLast() }
        return text
    }
}
