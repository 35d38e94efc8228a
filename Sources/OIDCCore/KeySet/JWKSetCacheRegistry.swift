import JOSE

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// One ``JWKSetCache`` per `jwks_uri`, created on first use and shared afterwards.
public actor JWKSetCacheRegistry {
    /// The transport the caches use.
    package nonisolated let transport: any HTTPTransport
    /// The configuration every cache gets.
    package nonisolated let configuration: JWKSetCache.Configuration
    /// Given to every cache (`observer`); `nil` (default): no events.
    package nonisolated let observer: (any OIDCObserver)?
    private var caches: [URL: JWKSetCache] = [:]

    /// Creates an empty registry; `observer` (default `nil`) receives the events of every cache it makes.
    public init(transport: any HTTPTransport, configuration: JWKSetCache.Configuration = .default, observer: (any OIDCObserver)? = nil) {
        self.observer = observer
        self.transport = transport
        self.configuration = configuration
    }

    /// The cache for `jwksURI` of `issuer` (when known: see ``JWKSetCache/init(jwksURI:issuer:transport:configuration:observer:)``).
    /// - Throws: ``OIDCError`` `.insecureURL` / `.invalidIssuerURL` for an unacceptable URL.
    public func cache(for jwksURI: URL, issuer: String? = nil) throws -> JWKSetCache {
        if let cache = caches[jwksURI] {
            try SecureURLPolicy.checkEndpoint(jwksURI, .jwks, issuer: issuer)
            return cache
        }
        let cache = try JWKSetCache(jwksURI: jwksURI, issuer: issuer, transport: transport, configuration: configuration, observer: observer)
        caches[jwksURI] = cache
        return cache
    }
}
