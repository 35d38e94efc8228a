#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The client side of RFC 9728: from a resource (or a 401 it answered) to its checked
/// ``ProtectedResourceMetadata`` and the issuer to get a token from.
///
/// Checks, all on by default:
/// - the resource identifier and the metadata URL are https (or http on a loopback host), the one
///   ``SecureURLPolicy`` rule (RFC 9728 §7.1);
/// - a `resource_metadata` URL from a challenge has the same origin (scheme, host, port) as the resource
///   identifier: a resource cannot send the client to fetch from another host (§7.7, request forgery), and a
///   document that another origin serves cannot speak for this resource (§7.3);
/// - the document's `resource` equals the resource identifier exactly (§3.3): otherwise it is not used;
/// - every `authorization_servers` entry and `jwks_uri` passes ``SecureURLPolicy``;
/// - the metadata URL is on a host the ``RemoteFetchPolicy`` admits (default: a public host on port 443; no
///   loopback, private or other internal address, checked by name resolution too), before any request:
///   the resource and its challenge may be a remote party's choice (a client that calls user-supplied APIs),
///   and the fetch must not become a request to the application's internal network. A refusal is
///   `resource_metadata_host_refused`; widen the policy by name for an internal API;
/// - redirects are not followed, the body is bounded (the same fetch as discovery), and an unusable body is
///   never quoted in the error's reason.
///
/// The issuer is then chosen with ``ProtectedResourceMetadata/authorizationServer(_:)``, from the servers the
/// client trusts (§7.6) or explicitly from any listed (then checked with the fetch policy, for it is the
/// resource's choice, and the client will fetch its metadata next).
public enum ProtectedResourceDiscovery {
    /// `/.well-known/oauth-protected-resource` inserted into `resource` (RFC 9728 §3.1; the RFC 8414 rule).
    /// - Throws: ``OIDCError`` `.invalidIssuerURL` (no URL, a fragment), `.insecureURL`.
    public static func metadataURL(forResource resource: String) throws -> URL {
        try WellKnownURL.url(for: resource, suffix: "oauth-protected-resource", what: "the resource identifier")
    }

    /// The `resource_metadata` parameter of the first `Bearer` or `DPoP` challenge of a response that has one
    /// (RFC 9728 §5.1), as written; `nil` when no challenge carries it.
    public static func resourceMetadataParameter(in response: TransportResponse) -> String? {
        AuthenticateChallenge.parse(response.headers.values(for: "WWW-Authenticate"))
            .first { ($0.scheme == "bearer" || $0.scheme == "dpop") && $0.parameter("resource_metadata") != nil }?
            .parameter("resource_metadata")
    }

    /// Fetches and checks the metadata of `resource` from its well-known URL, or from `metadataURL` (e.g. a
    /// challenge's `resource_metadata`), which must then have the resource's origin.
    /// - Parameters:
    ///   - resource: the resource identifier the client uses, compared exactly with the document's `resource`.
    ///   - metadataURL: where to fetch it; `nil`: ``metadataURL(forResource:)``.
    ///   - transport: how the document is fetched (redirects not followed).
    ///   - observer: receives one ``OIDCEvent/Kind/discovery`` event; `nil`: none. A policy refusal's diagnosis is
    ///     in the event's ``OIDCEvent/detail``.
    ///   - fetchPolicy: the hosts the metadata may be fetched from (default: public hosts on port 443).
    /// - Throws: ``OIDCError`` `.invalidIssuerURL` / `.insecureURL` (the resource, the URL, an authorization server
    ///   or `jwks_uri`), `.resourceMetadataOriginMismatch`, `.resourceMetadataHostRefused` (before any request),
    ///   `.discoveryTransportFailed`, `.discoveryHTTPStatus`, `.discoveryInvalidDocument`, `.discoveryMissingField`,
    ///   `.resourceMetadataMismatch`.
    public static func fetch(
        resource: String, metadataURL: URL? = nil, transport: any HTTPTransport,
        observer: (any OIDCObserver)? = nil,
        fetchPolicy: RemoteFetchPolicy = .publicHostsOnly
    ) async throws -> ProtectedResourceMetadata {
        let wellKnown = try Self.metadataURL(forResource: resource)
        let url = metadataURL ?? wellKnown
        if url != wellKnown {
            try SecureURLPolicy.check(url, what: "the resource_metadata URL")
            guard let resourceURL = URL(string: resource), Self.origin(of: url) == Self.origin(of: resourceURL) else {
                throw OIDCError(
                    .resourceMetadataOriginMismatch,
                    "the resource_metadata URL is not on the resource's origin (RFC 9728 §7.3, §7.7)")
            }
        }
        var diagnostic: String?
        return try await observer.observe(.discovery, origin: Observation.origin(of: resource), detail: diagnostic) {
            try await fetchPolicy.check(
                url, code: .resourceMetadataHostRefused, what: "the protected resource metadata host",
                endpoint: .protectedResourceMetadata, diagnostic: &diagnostic)
            let fetch = EndpointFetch(
                endpoint: .protectedResourceMetadata, issuer: nil, transportFailure: .discoveryTransportFailed,
                invalidBody: .discoveryInvalidDocument, statusCode: .discoveryHTTPStatus)
            let metadata = try await fetch.fetch(TransportRequest(url: url, headers: ["Accept": "application/json"]), via: transport) {
                try ProtectedResourceMetadata(jsonBytes: $0.body)
            }
            guard metadata.resource == resource else {
                throw OIDCError(
                    .resourceMetadataMismatch,
                    "the protected resource metadata names another resource than the one asked for (RFC 9728 §3.3)")
            }
            for server in metadata.authorizationServers {
                _ = try SecureURLPolicy.check(server, what: "an authorization server of the protected resource metadata")
            }
            if let jwksURI = metadata.jwksURI { try SecureURLPolicy.check(jwksURI, what: "the protected resource's jwks_uri") }
            return metadata
        }
    }

    /// The metadata of the resource that refused a request with 401: from the challenge's `resource_metadata`
    /// when present, else from the well-known URL of `resource`.
    /// - Parameters:
    ///   - response: the refusal (its `WWW-Authenticate` fields).
    ///   - resource: the resource identifier the client uses for this resource, which the document must name
    ///     exactly; RFC 9728 §3.3 says this is the URL of the refused request, so pass that unless the resource
    ///     names a wider identifier the client already knows (e.g. the API's base URL).
    ///   - transport: how the document is fetched.
    ///   - observer: receives one ``OIDCEvent/Kind/discovery`` event; `nil`: none.
    ///   - fetchPolicy: the hosts the metadata may be fetched from (default: public hosts on port 443).
    /// - Throws: as ``fetch(resource:metadataURL:transport:observer:fetchPolicy:)``; `.invalidIssuerURL` for a
    ///   `resource_metadata` that is not a URL.
    public static func fetch(
        challengedBy response: TransportResponse, resource: String, transport: any HTTPTransport,
        observer: (any OIDCObserver)? = nil,
        fetchPolicy: RemoteFetchPolicy = .publicHostsOnly
    ) async throws -> ProtectedResourceMetadata {
        var url: URL?
        if let text = resourceMetadataParameter(in: response) {
            url = try SecureURLPolicy.check(text, what: "the resource_metadata URL")
        }
        return try await fetch(resource: resource, metadataURL: url, transport: transport, observer: observer, fetchPolicy: fetchPolicy)
    }

    /// Scheme, lowercased host and port (the scheme's default when absent) of a URL.
    package static func origin(of url: URL) -> String? {
        guard let scheme = url.scheme?.lowercased(), let host = url.host(percentEncoded: false)?.lowercased() else { return nil }
        let port = url.port ?? (scheme == "https" ? 443 : scheme == "http" ? 80 : -1)
        return "\(scheme)://\(host):\(port)"
    }
}

extension ProtectedResourceMetadata {
    /// Which of the listed authorization servers a client may use.
    public enum AuthorizationServerChoice: Sendable, Hashable {
        /// The first listed server that is one of these issuers (RFC 9728 §7.6: only servers the client trusts).
        case trusted(Set<String>)
        /// The first listed server, whichever it is: the client accepts any server the resource names, on a host
        /// the fetch policy admits (the resource chose it, and the client fetches its metadata next).
        case anyListed
    }

    /// The issuer to get a token from for this resource. With ``AuthorizationServerChoice/anyListed`` the pick is
    /// checked with ``RemoteFetchPolicy/publicHostsOnly``'s rules that need no name resolution (port 443, no internal
    /// IP literal, no name reserved for local use); ``authorizationServer(_:fetchPolicy:)`` checks with a policy
    /// of the application's and resolves the name too.
    /// - Throws: ``OIDCError`` `.noTrustedAuthorizationServer` when no listed server fits `choice`;
    ///   `.resourceMetadataHostRefused` when the server picked from any listed is on a refused host.
    public func authorizationServer(_ choice: AuthorizationServerChoice) throws -> String {
        let pick = try listedServer(choice)
        if case .anyListed = choice, let url = URL(string: pick),
            let refusal = RemoteFetchPolicy.publicHostsOnly.refusalWithoutResolving(url)
        {
            throw Self.refused(refusal)
        }
        return pick
    }

    /// The issuer to get a token from for this resource; a server picked with ``AuthorizationServerChoice/anyListed``
    /// must be on a host `fetchPolicy` admits (name resolution included). A ``AuthorizationServerChoice/trusted(_:)``
    /// pick is the application's own configuration and is not checked.
    /// - Throws: ``OIDCError`` `.noTrustedAuthorizationServer`, `.resourceMetadataHostRefused`.
    public func authorizationServer(_ choice: AuthorizationServerChoice, fetchPolicy: RemoteFetchPolicy) async throws -> String {
        let pick = try listedServer(choice)
        if case .anyListed = choice, let url = URL(string: pick), let refusal = await fetchPolicy.refusal(for: url) {
            throw Self.refused(refusal)
        }
        return pick
    }

    private func listedServer(_ choice: AuthorizationServerChoice) throws -> String {
        let pick: String?
        switch choice {
        case .trusted(let issuers): pick = authorizationServers.first { issuers.contains($0) }
        case .anyListed: pick = authorizationServers.first
        }
        guard let pick else {
            throw OIDCError(
                .noTrustedAuthorizationServer,
                "the protected resource lists \(authorizationServers.count) authorization server(s), none of them usable")
        }
        return pick
    }

    private static func refused(_ refusal: RemoteFetchPolicy.Refusal) -> OIDCError {
        OIDCError(
            .resourceMetadataHostRefused,
            "the authorization server the protected resource names \(refusal.publicReason): "
                + "refused by the fetch policy (RemoteFetchPolicy; widen it by name with allowedHosts or admit)")
    }
}

extension ProviderEndpoint {
    /// A protected resource's metadata document (RFC 9728).
    public static let protectedResourceMetadata = ProviderEndpoint(rawValue: "oauth-protected-resource")
}
