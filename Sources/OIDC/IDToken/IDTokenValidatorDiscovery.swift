import JOSE

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension IDTokenValidator {
    /// A validator for a provider found by discovery, with keys from the registry's cache for its `jwks_uri`.
    ///
    /// The configuration starts from the provider's issuer and advertised `id_token_signing_alg_values_supported`.
    /// - Parameters:
    ///   - issuer: the provider's issuer identifier, compared exactly with the document's `issuer`.
    ///   - clientID: this client's `client_id`, the audience the ID Tokens must name.
    ///   - clientSecret: the client secret, only for providers that sign ID Tokens with HS*.
    ///   - discovery: the discovery client (and its cache) to use.
    ///   - keyCaches: the registry whose cache for the provider's `jwks_uri` supplies the keys.
    ///   - configure: adjusts the configuration (leeway, clock, allowed algorithms...) before use.
    /// - Throws: ``/OIDCCore/OIDCError``: discovery errors, such as `.insecureURL`, and `.jwksURIMissing`.
    public static func discover(
        issuer: String, clientID: String, clientSecret: String? = nil,
        discovery: Discovery, keyCaches: JWKSetCacheRegistry,
        configure: @Sendable (inout Configuration) -> Void = { _ in }
    ) async throws -> IDTokenValidator {
        let metadata = try await discovery.metadata(for: issuer)
        guard let jwksURI = metadata.jwksURI else { throw OIDCError(.jwksURIMissing, "the provider publishes no jwks_uri") }
        var config = Configuration(metadata: metadata, clientID: clientID, clientSecret: clientSecret)
        configure(&config)
        return IDTokenValidator(configuration: config, keys: .cache(try await keyCaches.cache(for: jwksURI)))
    }
}
