import JOSE

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Keeps one issuer's JWK Set from its `jwks_uri` and follows its key rotation.
///
/// The set is fetched through an ``HTTPTransport``. Give the cache to validators as ``IssuerKeys/cache(_:)``.
///
/// - The set is kept for ``Configuration/defaultTimeToLive`` (5 minutes), or for the
///   response's `Cache-Control: max-age` when present (clamped to the configured bounds).
/// - A token naming an unknown `kid` triggers one re-fetch, at most once per
///   ``Configuration/refreshCoolDown`` (30 s) however many tokens ask at once:
///   concurrent callers wait for the single in-flight fetch. The cool-down runs from the
///   last re-fetch an unknown `kid` caused (successful or not); fetches for expiry do not start it.
/// - Keys that cannot verify are left out: unknown `kty`/curve or malformed
///   keys, keys whose `use`/`key_ops` do not permit
///   verification (`use: enc`), and `oct` secrets (a provider's JWK Set has no
///   business holding them; HS* ID Tokens are verified with the client secret).
/// - A failed fetch throws a typed error and leaves the cache as it was: the
///   previous keys stay usable until they expire.
public actor JWKSetCache {
    /// Cache timing and limits.
    public struct Configuration: Sendable {
        /// Seconds a set is kept when the response has no `Cache-Control: max-age` (default 300).
        public var defaultTimeToLive: TimeInterval
        /// Lower bound for a `max-age` (default 30 s), so `max-age=0` cannot cause a fetch per token.
        public var minimumTimeToLive: TimeInterval
        /// Upper bound for a `max-age` (default one day).
        public var maximumTimeToLive: TimeInterval
        /// Whether `Cache-Control: max-age` sets the lifetime (default `true`).
        public var honoursCacheControl: Bool
        /// Minimum seconds between two re-fetches caused by unknown `kid`s (default 30).
        public var refreshCoolDown: TimeInterval
        /// The current time (inject a controllable clock in tests).
        public var clock: @Sendable () -> Date
        /// Input limits for the JWK Set document.
        public var limits: JOSELimits
        /// Request timeout in seconds.
        public var requestTimeout: TimeInterval

        /// Creates a configuration; every parameter has the documented default.
        public init(
            defaultTimeToLive: TimeInterval = 300, minimumTimeToLive: TimeInterval = 30,
            maximumTimeToLive: TimeInterval = 86_400, honoursCacheControl: Bool = true,
            refreshCoolDown: TimeInterval = 30, clock: @escaping @Sendable () -> Date = { Date() },
            limits: JOSELimits = .default, requestTimeout: TimeInterval = 30
        ) {
            self.defaultTimeToLive = defaultTimeToLive
            self.minimumTimeToLive = minimumTimeToLive
            self.maximumTimeToLive = maximumTimeToLive
            self.honoursCacheControl = honoursCacheControl
            self.refreshCoolDown = refreshCoolDown
            self.clock = clock
            self.limits = limits
            self.requestTimeout = requestTimeout
        }

        /// The defaults.
        public static let `default` = Configuration()
    }

    /// Where the set is fetched from.
    public nonisolated let jwksURI: URL
    /// The issuer whose set this is, when known: the URL policy then allows `http`
    /// only if this issuer is itself an `http` loopback issuer.
    public nonisolated let issuer: String?
    /// The transport requests go through.
    package nonisolated let transport: any HTTPTransport
    /// Timing and limits.
    package nonisolated let configuration: Configuration
    /// Receives ``OIDCEvent/Kind/keySetFetched`` per download, ``OIDCEvent/Kind/keySetRefetchedForUnknownKey``
    /// per re-fetch an unknown `kid` caused (failure: the `kid` still unknown, or the fetch failed) and
    /// ``OIDCEvent/Kind/keySetCoolingDown`` when one was not made; `nil` (default): none.
    package nonisolated let observer: (any OIDCObserver)?

    private var current: JWKSet?
    private var currentEncryptionKeys = JWKSet(keys: [])
    private var expiry: Date = .distantPast
    /// `current` and `expiry` as last set, readable without entering the actor (``freshKeys()``).
    private nonisolated let published = Locked<(keys: JWKSet, expiry: Date)?>(nil)
    private var inFlight: Task<JWKSet, any Error>?
    /// Told of every set fetched (``whenKeySetFetched(_:)``).
    private nonisolated let keySetListeners = Locked<[@Sendable (JWKSet) -> Void]>([])
    private var lastUnknownKeyRefresh: Date?
    /// How many keys of the last fetched document were left out as unusable.
    package private(set) var skippedKeyCount = 0
    /// How many fetches completed successfully (for diagnostics).
    package private(set) var successfulFetches = 0

    /// Creates a cache for `jwksURI`, which must be `https`, or `http` on a loopback host
    /// (and then, when `issuer` is given, only for an `http` loopback issuer: see
    /// `SecureURLPolicy.checkEndpoint(_:_:issuer:)`). Every fetch checks the URL again.
    /// `observer` (default `nil`: none) receives the cache's events (see `observer`).
    /// - Throws: ``OIDCError`` `.insecureURL` / `.invalidIssuerURL` with ``OIDCError/endpoint`` `jwks_uri`.
    public init(
        jwksURI: URL, issuer: String? = nil, transport: any HTTPTransport, configuration: Configuration = .default,
        observer: (any OIDCObserver)? = nil
    ) throws {
        try SecureURLPolicy.checkEndpoint(jwksURI, .jwks, issuer: issuer)
        self.observer = observer
        self.jwksURI = jwksURI
        self.issuer = issuer
        self.transport = transport
        self.configuration = configuration
    }

    /// The usable keys: the cached set while it is fresh, otherwise a fetched one.
    /// - Throws: ``OIDCError`` `.jwksTransportFailed`, `.jwksHTTPStatus`, `.jwksInvalidDocument`.
    public func keys() async throws -> JWKSet {
        if let current, expiry > configuration.clock() { return current }
        return try await fetchShared()
    }

    /// The cached set while it is fresh (the same answer ``keys()`` gives without fetching), read
    /// without a hop onto the actor; `nil` when ``keys()`` must fetch. The hot path of every verification.
    package nonisolated func freshKeys() -> JWKSet? {
        guard let (keys, expiry) = published.withLock({ $0 }), expiry > configuration.clock() else { return nil }
        return keys
    }

    /// Calls `listener` with every set this cache fetches from now on, once it is the set ``keys()`` serves and before the
    /// fetch's callers resume: what keeps derived state (a cache of tokens these keys verified) in step with rotation.
    /// `listener` runs on the fetching task and must not block; it is kept as long as the cache.
    package nonisolated func whenKeySetFetched(_ listener: @escaping @Sendable (JWKSet) -> Void) {
        keySetListeners.withLock { $0.append(listener) }
    }

    /// Fetches the set now (joining a fetch already in flight), regardless of freshness.
    public func refresh() async throws -> JWKSet {
        try await fetchShared()
    }

    /// The provider's public encryption keys, fetched now (joining a fetch already in flight): the keys of the
    /// set that are not `oct`, hold no private member and have `use: enc` — or, when no key of the set states a
    /// `use`, every such key — in the document's order (``RequestObject/encrypt(_:to:algorithm:encryption:)``
    /// picks the first whose type and `alg` fit); never a `use: sig` key.
    ///
    /// Always fetched, never served from the cache: a provider that rotates its encryption key stops
    /// decrypting with the old one at once, and a client encrypting to it learns nothing of it (the provider's
    /// refusal reaches the browser, not the client). One GET per encrypted request is the price.
    /// The fetch also renews the verification keys ``keys()`` serves.
    /// - Throws: ``OIDCError`` `.jwksTransportFailed`, `.jwksHTTPStatus`, `.jwksInvalidDocument`.
    package func encryptionKeys() async throws -> JWKSet {
        _ = try await fetchShared()
        return currentEncryptionKeys
    }

    /// The key that verifies `jws`: by `kid` (re-fetching once, within the cool-down,
    /// when the `kid` is unknown), or — for a token without `kid` — the single key fitting its algorithm.
    /// - Throws: ``OIDCError`` `.signingKeyNotFound`, `.ambiguousSigningKey`, `.unsecuredToken`,
    ///   `.unsupportedAlgorithm`, or a fetch error.
    package func key(for jws: CompactJWS) async throws -> JWK {
        let algorithm = try VerificationErrors.algorithm(of: jws.header)
        let fetchesBefore = successfulFetches
        var set = try await keys()
        do {
            return try set.selectKey(keyID: jws.header.keyID, algorithm: algorithm)
        } catch let error as JOSEError where error.code == .keyNotFound && jws.header.keyID != nil {
            if successfulFetches != fetchesBefore {
                // The set was fetched for this very call: fetching again cannot tell more.
                throw VerificationErrors.map(error, header: jws.header)
            } else if let inFlight {
                set = try await inFlight.value
            } else {
                let now = configuration.clock()
                if let last = lastUnknownKeyRefresh, now.timeIntervalSince(last) < configuration.refreshCoolDown {
                    observer.recordFailure(.keySetCoolingDown, VerificationErrors.map(error, header: jws.header), origin: OIDCEvent.origin(of: jwksURI))
                    throw VerificationErrors.map(error, header: jws.header)
                }
                lastUnknownKeyRefresh = now
                return try await observer.observe(.keySetRefetchedForUnknownKey, origin: OIDCEvent.origin(of: jwksURI)) {
                    try Self.select(from: try await fetchShared(), for: jws, algorithm: algorithm)
                }
            }
            return try Self.select(from: set, for: jws, algorithm: algorithm)
        } catch let error as JOSEError {
            throw VerificationErrors.map(error, header: jws.header)
        }
    }

    /// Finds the key for `jws` (see `key(for:)`) and verifies the signature under `policy`.
    /// - Returns: the key that verified it.
    /// - Throws: ``OIDCError`` (`.invalidSignature`, `.algorithmNotAllowed`, ...), the JOSE error attached.
    @discardableResult
    package func verify(_ jws: CompactJWS, policy: JWSVerificationPolicy = .default) async throws -> JWK {
        let key = try await key(for: jws)
        do {
            try jws.verify(with: key, policy: policy)
        } catch let error as JOSEError {
            throw VerificationErrors.map(error, header: jws.header)
        }
        return key
    }

    /// The key of `set` for `jws`, or the mapped key error.
    private static func select(from set: JWKSet, for jws: CompactJWS, algorithm: JWSAlgorithm) throws -> JWK {
        do {
            return try set.selectKey(keyID: jws.header.keyID, algorithm: algorithm)
        } catch let error as JOSEError {
            throw VerificationErrors.map(error, header: jws.header)
        }
    }

    private func fetchShared() async throws -> JWKSet {
        if let inFlight { return try await inFlight.value }
        let task = Task<JWKSet, any Error> {
            defer { self.inFlight = nil }
            let (fetched, encryptionKeys, skipped, lifetime) = try await observer.observe(.keySetFetched, origin: OIDCEvent.origin(of: jwksURI)) {
                try await Self.download(jwksURI, issuer: issuer, transport: transport, configuration: configuration)
            }
            let expiry = configuration.clock().addingTimeInterval(lifetime)
            self.current = fetched
            self.currentEncryptionKeys = encryptionKeys
            self.skippedKeyCount = skipped
            self.expiry = expiry
            self.published.withLock { $0 = (fetched, expiry) }
            self.successfulFetches += 1
            for listener in self.keySetListeners.withLock({ $0 }) { listener(fetched) }
            return fetched
        }
        inFlight = task
        return try await task.value
    }

    /// The set's verification keys (see the type's documentation), its encryption keys (see `encryptionKeys()`),
    /// how many keys were left out of the first, and the lifetime the response grants.
    private static func download(
        _ url: URL, issuer: String?, transport: any HTTPTransport,
        configuration: Configuration
    ) async throws -> (JWKSet, JWKSet, Int, TimeInterval) {
        let fetch = EndpointFetch(
            endpoint: .jwks, issuer: issuer, transportFailure: .jwksTransportFailed, invalidBody: .jwksInvalidDocument,
            maxBodyBytes: configuration.limits.maxKeySetBytes, statusCode: .jwksHTTPStatus)
        let request = TransportRequest(url: url, headers: ["Accept": "application/jwk-set+json, application/json"], timeout: configuration.requestTimeout)
        let (parsed, response) = try await fetch.fetch(request, via: transport) { response in
            do {
                return (try JWKSet(jsonBytes: response.body, limits: configuration.limits), response)
            } catch let error as JOSEError {
                throw OIDCError(.jwksInvalidDocument, "the JWK Set document is not usable", joseError: error, endpoint: .jwks)
            }
        }
        let set = verificationKeys(of: parsed)
        let skipped = parsed.skipped.count + parsed.keys.count - set.keys.count
        return (set, JWKSet(keys: parsed.providerEncryptionKeys), skipped, lifetime(of: response.headers, configuration: configuration))
    }

    /// The keys of a published set that can verify a signature: not symmetric, not reserved for encryption. The set
    /// keeps its record of skipped entries: JOSE then refuses a kid shared with an unparseable key as ambiguous, and a
    /// kid naming a key of an unknown type (kty AKP, say) as unsupported_key_type.
    package static func verificationKeys(of parsed: JWKSet) -> JWKSet {
        parsed.filter { $0.keyType != .oct && $0.permits(operation: "verify") }
    }

    /// The lifetime a response grants: its `Cache-Control: max-age`, clamped, or the default.
    package static func lifetime(of headers: HeaderFields, configuration: Configuration) -> TimeInterval {
        guard configuration.honoursCacheControl else { return configuration.defaultTimeToLive }
        for value in headers.values(for: "Cache-Control") {
            for directive in value.split(separator: ",") {
                let parts = directive.split(separator: "=", maxSplits: 1).map { $0.filter { $0 != " " && $0 != "\t" } }
                guard parts.count == 2, parts[0].lowercased() == "max-age" else { continue }
                let digits = parts[1].filter { $0 != "\"" }
                guard let seconds = Int(digits), seconds >= 0 else { continue }
                return min(max(TimeInterval(seconds), configuration.minimumTimeToLive), configuration.maximumTimeToLive)
            }
        }
        return configuration.defaultTimeToLive
    }
}
