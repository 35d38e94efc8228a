import JOSE

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Fetches, verifies and keeps Token Status Lists (draft-ietf-oauth-status-list §8), so a verifier learns whether
/// a credential was revoked or suspended.
///
/// - The URL a credential names is a URL a remote party chose: it goes through the ``RemoteFetchPolicy`` (default:
///   public hosts on port 443, no internal address) and must be `https` (`http` only on a loopback host the policy
///   admits by name). Redirects are not followed; the answer is bounded in size and time; no body excerpt
///   reaches an error.
/// - The token is verified with the credential issuer's keys, given with each question (``/JOSE/StatusListToken``).
/// - A verified list is kept until the earliest of its `exp`, `iat`/fetch time + `ttl`, and the cache's own
///   ``Configuration/maximumAge``; a list verified with a key that is not in the keys of a later question is
///   fetched and verified again, so one issuer's list never answers for another's.
/// - One fetch per URL at a time: concurrent questions about the same list wait for the one fetch.
public actor StatusListCache {
    /// Bounds and clock.
    public struct Configuration: Sendable {
        /// The hosts a status list may be fetched from (default: public hosts on port 443).
        public var fetchPolicy: RemoteFetchPolicy = .publicHostsOnly
        /// The largest status list token accepted, in bytes (default 1 MiB).
        public var maximumTokenBytes = 1 << 20
        /// The largest inflated list accepted, in bytes (default 16 MiB).
        public var maximumListBytes = StatusList.defaultMaximumBytes
        /// How long a list is kept when its token has neither `exp` nor `ttl`, and at most otherwise (default 300 s).
        public var maximumAge: TimeInterval = 300
        /// The time allowed per fetch (default 10 s).
        public var requestTimeout: TimeInterval = 10
        /// The leeway for `exp`, `nbf` and `iat` (default 60 s).
        public var leeway: TimeInterval = 60
        /// The clock.
        public var clock: @Sendable () -> Date = { Date() }
        /// Receives one ``OIDCEvent/Kind/statusListFetched`` event per fetch; never the token.
        public var observer: (any OIDCObserver)?

        /// The defaults above.
        public init() {}
    }

    private struct Entry {
        let token: StatusListToken
        let keepUntil: Date
    }

    private let transport: any HTTPTransport
    private let configuration: Configuration
    private var entries: [String: Entry] = [:]
    private var inFlight: [String: Task<StatusListToken, any Error>] = [:]

    /// A cache that fetches through `transport`.
    public init(transport: any HTTPTransport, configuration: Configuration = Configuration()) {
        self.transport = transport
        self.configuration = configuration
    }

    /// The status of the credential `reference` names, from the list at its URI verified with `keys`.
    /// - Throws: ``OIDCError`` `.statusListHostRefused`, `.statusListTransportFailed`, `.statusListHTTPStatus`,
    ///   `.statusListInvalid` (the token or list is not usable, or the index is outside the list; the JOSE reason in
    ///   ``OIDCError/joseError``).
    public func status(of reference: StatusListReference, keys: JWKSet) async throws -> StatusList.Status {
        let token = try await verifiedToken(at: reference.uri, keys: keys)
        do { return try token.list.status(at: reference.index) } catch {
            throw OIDCError(.statusListInvalid, "the credential's status index is outside the status list", joseError: error)
        }
    }

    /// Forgets every list (e.g. after the issuer's keys changed).
    public func removeAll() {
        entries.removeAll()
    }

    private func verifiedToken(at uri: String, keys: JWKSet) async throws -> StatusListToken {
        let now = configuration.clock()
        if let entry = entries[uri], entry.keepUntil > now, Self.contains(keys, entry.token.key) {
            return entry.token
        }
        if let running = inFlight[uri] { return try Self.checked(try await running.value, keys: keys) }
        let task = Task { try await self.fetch(uri, keys: keys) }
        inFlight[uri] = task
        defer { inFlight[uri] = nil }
        let token = try await task.value
        return try Self.checked(token, keys: keys)
    }

    /// A token verified for another caller's keys is used only if its key is among `keys`.
    private static func checked(_ token: StatusListToken, keys: JWKSet) throws -> StatusListToken {
        guard contains(keys, token.key) else {
            throw OIDCError(.statusListInvalid, "the status list token is not signed by a key of the credential's issuer")
        }
        return token
    }

    private static func contains(_ keys: JWKSet, _ key: JWK) -> Bool {
        let wanted = key.thumbprint()
        return keys.keys.contains { $0.thumbprint() == wanted }
    }

    private func fetch(_ uri: String, keys: JWKSet) async throws -> StatusListToken {
        guard let url = URL(string: uri), url.host != nil else {
            throw OIDCError(.statusListInvalid, "the credential's status list URI is not a URL")
        }
        var diagnostic: String?
        let token = try await configuration.observer.observe(.statusListFetched, origin: OIDCEvent.origin(of: url), detail: diagnostic) {
            try await configuration.fetchPolicy.check(
                url, code: .statusListHostRefused, what: "the status list host", endpoint: .statusList, diagnostic: &diagnostic)
            var fetch = EndpointFetch(
                endpoint: .statusList, issuer: nil, transportFailure: .statusListTransportFailed,
                invalidBody: .statusListHTTPStatus, accepted: 200...200, maxBodyBytes: configuration.maximumTokenBytes,
                statusCode: .statusListHTTPStatus)
            fetch.quotesBody = false
            let request = TransportRequest(url: url, headers: ["Accept": StatusListToken.mediaType], timeout: configuration.requestTimeout)
            let response = try await fetch.send(request, via: transport)
            // The compact JWS, without the line break a file-serving endpoint may add.
            var body = response.body[...]
            while let last = body.last, last == 0x0A || last == 0x0D || last == 0x20 { body = body.dropLast() }
            let text = String(decoding: body, as: UTF8.self)
            var validation = JWTValidationPolicy.default
            validation.clock = configuration.clock
            validation.leeway = configuration.leeway
            do {
                return try StatusListToken.verify(
                    text, uri: uri, keys: keys, validation: validation,
                    maximumListBytes: configuration.maximumListBytes)
            } catch let error as JOSEError {
                throw OIDCError(.statusListInvalid, "the status list token is not usable: \(error.reason)", joseError: error, endpoint: .statusList)
            }
        }
        let fetchedAt = configuration.clock()
        var keepUntil = fetchedAt.addingTimeInterval(configuration.maximumAge)
        if let ttl = token.timeToLive { keepUntil = min(keepUntil, fetchedAt.addingTimeInterval(ttl)) }
        if let expiry = token.expiresAt { keepUntil = min(keepUntil, expiry) }
        entries[uri] = Entry(token: token, keepUntil: keepUntil)
        return token
    }
}

extension ProviderEndpoint {
    /// A Token Status List URL a credential named (draft-ietf-oauth-status-list).
    public static let statusList = ProviderEndpoint(rawValue: "status_list")
}
