import Foundation
import Hummingbird
import HummingbirdTLS
import Logging
import NIOSSL
import OIDC
import OIDCPostgres
import OIDCResourceServer
import OIDCSession

/// The sample web application: login, session, UserInfo, logout (RP-initiated and back-channel)
/// and a protected resource, on Hummingbird 2 (Samples/hummingbird-app/README.md).
@main
struct HummingbirdApp {
    static func main() async {
        let options: Options
        do {
            options = try Options.parse(Array(CommandLine.arguments.dropFirst()), program: "hummingbird-app")
        } catch {
            FileHandle.standardError.write(Data("hummingbird-app: \(error)\n".utf8))
            exit(2)
        }
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = options.logLevel
            return handler
        }
        let logger = Logger(label: "hummingbird-app")
        do {
            try await run(options, logger: logger)
        } catch {
            logger.critical("cannot start: \(error)")
            exit(1)
        }
    }

    static func run(_ options: Options, logger: Logger) async throws {
        // The request-object key is read before anything else (a bad file stops the start, naming the flag).
        let requestObjectSignature = try options.requestObjectSignature()
        // The observability hook: the toolkit's events into swift-log and swift-metrics; a span per provider call.
        let observer = FanOutObserver(observers: [LoggingObserver(logger: Logger(label: "oidc")), MetricsObserver()])
        // mTLS (RFC 8705): the client certificate and key go into AsyncHTTPClient's TLS configuration.
        let identity = try options.tlsClientCertificatePath.map { path in
            (chain: try NIOSSLCertificate.fromPEMFile(path), key: try NIOSSLPrivateKey(file: options.tlsClientKeyPath ?? "", format: .pem))
        }
        let http = AsyncHTTPClientTransport.make(clientCertificate: identity, trustRoots: options.tlsCAFilePath)
        let transport = TracingTransport(base: http)
        // The stores first: the client's back-channel logout records its logout tokens' jti in one of them.
        let stores: AppStores
        if let url = options.databaseURL {
            stores = try await AppStores.postgres(url: url, options: options, issuer: options.issuer)
        } else {
            stores = AppStores.inMemory(options)
        }
        let database = stores.database

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
        let app = WebApp(
            options: options, client: client, pendingLogins: stores.pendingLogins, sessions: stores.sessions,
            resource: resource, logger: logger,
            requestObject: requestObject, requestObjects: requestObjects)

        let router = Router(context: AppRequestContext.self)
        app.register(on: router)
        let serverConfiguration = ApplicationConfiguration(address: .hostname("127.0.0.1", port: options.port))
        let application: Application<RouterResponder<AppRequestContext>>
        if let certificate = options.tlsCertificatePath, let key = options.tlsKeyPath {
            // https; a client certificate is asked for and, when sent, verified against --tls-client-ca
            // (optional: /api/resource needs it only for certificate-bound tokens).
            var tls = TLSConfiguration.makeServerConfiguration(
                certificateChain: try NIOSSLCertificate.fromPEMFile(certificate).map { .certificate($0) },
                privateKey: .privateKey(try NIOSSLPrivateKey(file: key, format: .pem)))
            if let clientCA = options.tlsClientCAPath {
                tls.trustRoots = .file(clientCA)
                tls.certificateVerification = .optionalVerification
            }
            application = Application(router: router, server: try .tls(.http1(), tlsConfiguration: tls), configuration: serverConfiguration, logger: logger)
        } else {
            application = Application(router: router, configuration: serverConfiguration, logger: logger)
        }
        logger.info(
            "listening",
            metadata: [
                "address": "127.0.0.1:\(options.port)", "base_url": "\(options.baseURL.absoluteString)",
                "issuer": "\(client.issuer)", "store": "\(database == nil ? "memory" : "postgresql")",
                "request_object": "\(options.requestObject?.rawValue ?? "off")",
            ])
        do {
            try await application.runService()
        } catch {
            try? await http.shutdown()
            database?.close()
            throw error
        }
        try? await http.shutdown()
        database?.close()
    }
}
