import JOSE

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension OIDCClient {
    /// A client for the registration the provider answered: its `client_id`, and the client authentication
    /// its registered `token_endpoint_auth_method` names (``ClientRegistration/authentication(privateKey:algorithm:)``).
    /// - Parameters:
    ///   - metadata: the provider's metadata.
    ///   - registration: the provider's answer to the registration.
    ///   - privateKey: the client's signing key, for `private_key_jwt`.
    ///   - transport: the HTTP transport.
    ///   - configuration: clock, leeway, accepted token types, algorithms, key cache.
    /// - Throws: ``/OIDCCore/OIDCError`` as ``ClientRegistration/authentication(privateKey:algorithm:)`` and
    ///   ``init(metadata:authentication:transport:configuration:)``.
    public init(
        metadata: ProviderMetadata, registration: ClientRegistration, privateKey: JWK? = nil, transport: any HTTPTransport,
        configuration: Configuration = Configuration()
    ) throws {
        try self.init(
            metadata: metadata, authentication: try registration.authentication(privateKey: privateKey),
            transport: transport, configuration: configuration)
    }

    /// Discovers the provider at `issuer` (exact issuer, https unless loopback), registers a client there
    /// (RFC 7591) and returns the client with its registration, in one call.
    /// - Parameters:
    ///   - issuer: the issuer identifier, exactly as the provider states it.
    ///   - metadata: the client's metadata.
    ///   - initialAccessToken: the initial access token, when the provider requires one.
    ///   - privateKey: the client's signing key, for `private_key_jwt` (its public half belongs in `metadata.jwks`).
    ///   - transport: the HTTP transport.
    ///   - configuration: clock, leeway, accepted token types, algorithms, key cache, observer.
    /// - Returns: the client and the registration (keep it, with its secrets, server-side to manage the client later).
    /// - Throws: ``/OIDCCore/OIDCError``: discovery errors, those of ``ClientRegistrar/register(_:initialAccessToken:)``, and of
    ///   ``init(metadata:registration:privateKey:transport:configuration:)``.
    public static func register(
        issuer: String, metadata: ClientMetadata, initialAccessToken: String? = nil, privateKey: JWK? = nil,
        transport: any HTTPTransport,
        configuration: Configuration = Configuration()
    ) async throws -> (client: OIDCClient, registration: ClientRegistration) {
        let provider = try await Discovery.fetch(issuer: issuer, transport: transport, observer: configuration.observer)
        let registrar = try ClientRegistrar(metadata: provider, transport: transport, observer: configuration.observer)
        let registration = try await registrar.register(metadata, initialAccessToken: initialAccessToken)
        let client = try OIDCClient(
            metadata: provider, registration: registration, privateKey: privateKey, transport: transport,
            configuration: configuration)
        return (client, registration)
    }
}
