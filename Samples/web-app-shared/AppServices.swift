import Foundation
import Logging
import NIOSSL
import OIDC
import OIDCPostgres
import OIDCResourceServer
import OIDCSession

/// What both apps make before their web server starts, in the same order: the request-object key (a bad file
/// stops the start, naming the flag), the observer, the provider transport (AsyncHTTPClient, mTLS), the stores,
/// the client (discovery), the protected resource and the routes (``WebApp``).
struct AppServices: Sendable {
    let web: WebApp
    /// The provider transport: shut down by ``shutdown()``.
    let http: AsyncHTTPClientTransport
    /// The pool, with `--database`: closed by ``shutdown()``.
    let database: SharedDatabase?
    /// The stores (in memory, PostgreSQL or Redis).
    let stores: AppStores
    /// The transport every provider call takes (traced; with Redis, the JWK Set shared between instances).
    let transport: any HTTPTransport
    /// The client's key cache for the provider's `jwks_uri` (also the protected resource's).
    let keys: JWKSetCache
    /// The toolkit's events into swift-log and swift-metrics.
    let observer: any OIDCObserver

    /// Makes every service; on a failure, what was made is shut down before the error is thrown (an
    /// AsyncHTTPClient never shut down stops a debug build at its deinit instead of the app's exit code 1).
    static func start(_ options: Options, logger: Logger) async throws -> AppServices {
        // The request-object key is read before anything else (a bad file stops the start, naming the flag).
        let requestObjectSignature = try options.requestObjectSignature()
        // The observability hook: the toolkit's events into swift-log and swift-metrics; a span per provider call.
        let observer = FanOutObserver(observers: [LoggingObserver(logger: Logger(label: "oidc")), MetricsObserver()])
        // mTLS (RFC 8705): the client certificate and key go into AsyncHTTPClient's TLS configuration.
        let identity = try options.tlsClientCertificatePath.map { path in
            (chain: try NIOSSLCertificate.fromPEMFile(path), key: try NIOSSLPrivateKey(file: options.tlsClientKeyPath ?? "", format: .pem))
        }
        let http = AsyncHTTPClientTransport.make(clientCertificate: identity, trustRoots: options.tlsCAFilePath)
        var database: SharedDatabase?
        do {
            let traced = TracingTransport(base: http)
            // The stores first: the client's back-channel logout records its logout tokens' jti in one of them.
            let stores: AppStores
            if let url = options.databaseURL {
                stores = try await AppStores.shared(url: url, options: options, issuer: options.issuer, transport: traced)
            } else {
                stores = AppStores.inMemory(options)
            }
            database = stores.database
            // With Redis, the provider's JWK Set is fetched once per key-set change for every instance (the client's
            // key cache and the protected resource's are one); every other request passes through unchanged.
            let transport: any HTTPTransport = stores.keySetSharing ?? traced

            var configuration = OIDCClient.Configuration(allowedAlgorithms: [options.idTokenAlgorithm])
            configuration.observer = observer
            configuration.assertionAudience = options.assertionAudience
            configuration.logoutTokens.replays = stores.logoutTokenReplays
            if options.draftLogoutTokens {
                configuration.logoutTokens.typeRule = .alsoAcceptingPlainJWT
                configuration.logoutTokens.expirationRule = .optionalForDraftProviders
            }
            let client = try await OIDCClient.discover(
                issuer: options.issuer, authentication: try options.authentication(),
                transport: transport, configuration: configuration)
            // The client's own JWK Set cache, shared with the protected resource: one cache for the provider's jwks_uri.
            guard case .cache(let keys) = client.providerKeys else { throw OIDCError(.jwksURIMissing, "the provider publishes no jwks_uri") }

            let resource = try await ProtectedResource(
                options: options, client: client, keys: keys, transport: transport, replays: stores.dpopProofReplays,
                observer: observer)
            // --request-object: the login request as a request object, signed (or, named, unsigned), maybe encrypted.
            var requestObject: RequestObject.Configuration?
            var requestObjects: RequestObjectHost?
            if let signature = requestObjectSignature {
                if options.requestObject == .byReference {
                    // Published by LoginStarter, only once the login's pending login is saved.
                    requestObjects = RequestObjectHost(
                        store: stores.requestObjects, baseURL: options.baseURL.absoluteString,
                        lifetime: options.requestObjectLifetime, logger: logger)
                }
                requestObject = RequestObject.Configuration(
                    signature: signature, encryption: options.requestObjectEncrypted ? RequestObject.Encryption() : nil,
                    delivery: .byValue, lifetime: options.requestObjectLifetime)
            }
            let web = WebApp(
                options: options, client: client, pendingLogins: stores.pendingLogins, sessions: stores.sessions,
                resource: resource, logger: logger,
                requestObject: requestObject, requestObjects: requestObjects)
            return AppServices(
                web: web, http: http, database: database, stores: stores, transport: transport, keys: keys, observer: observer)
        } catch {
            try? await http.shutdown()
            database?.close()
            throw error
        }
    }

    /// The `listening` log line both apps write once their server is configured.
    func logListening(_ logger: Logger, extra: Logger.Metadata = [:]) {
        let options = web.options
        logger.info(
            "listening",
            metadata: [
                "address": "127.0.0.1:\(options.port)", "base_url": "\(options.baseURL.absoluteString)",
                "issuer": "\(web.client.issuer)", "store": "\(database?.name ?? "memory")",
                "request_object": "\(options.requestObject?.rawValue ?? "off")",
            ].merging(extra) { _, new in new })
    }

    /// Shuts the provider transport down and closes the pool.
    func shutdown() async {
        try? await http.shutdown()
        database?.close()
    }
}
