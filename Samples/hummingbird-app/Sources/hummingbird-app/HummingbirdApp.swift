import Foundation
import Hummingbird
import HummingbirdTLS
import NIOSSL
import Logging
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
            options = try Options.parse(Array(CommandLine.arguments.dropFirst()))
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
        var configuration = OIDCClient.Configuration(allowedAlgorithms: [options.idTokenAlgorithm])
        configuration.observer = observer
        configuration.assertionAudience = options.assertionAudience
        let client = try await OIDCClient.discover(issuer: options.issuer, authentication: try options.authentication(),
                                                   transport: transport, configuration: configuration)
        guard let jwksURI = client.metadata.jwksURI else { throw OIDCError(.jwksURIMissing, "the provider publishes no jwks_uri") }
        let keys = try JWKSetCache(jwksURI: jwksURI, issuer: client.issuer, transport: transport, observer: observer)

        let stores: AppStores
        if let url = options.databaseURL {
            stores = try await AppStores.postgres(url: url, options: options, issuer: client.issuer)
        } else {
            stores = AppStores.inMemory(options)
        }
        let database = stores.database

        let resource = try await ProtectedResource(options: options, client: client, keys: keys, transport: transport, replays: stores.dpopProofReplays,
                                             observer: observer)
        var logout = LogoutTokenValidator(
            issuer: client.issuer, clientID: client.clientID, keys: .cache(keys), replays: stores.logoutTokenReplays, allowedAlgorithms: [options.idTokenAlgorithm],
            typeRule: options.draftLogoutTokens ? .alsoAcceptingPlainJWT : .logoutJWTWhenPresent,
            expirationRule: options.draftLogoutTokens ? .optionalForDraftProviders : .required)
        logout.observer = observer
        // --request-object: the login request as a request object, signed (or, named, unsigned), maybe encrypted.
        var requestObject: RequestObjectOptions?
        var requestObjects: RequestObjectHost?
        if let signature = requestObjectSignature {
            if options.requestObject == .byReference {
                // Published by LoginStarter, only once the login's pending login is saved.
                requestObjects = RequestObjectHost(store: stores.requestObjects, baseURL: options.baseURL.absoluteString,
                                                   lifetime: options.requestObjectLifetime, logger: logger)
            }
            requestObject = RequestObjectOptions(signature: signature, encryption: options.requestObjectEncrypted ? RequestObjectEncryption() : nil,
                                                 delivery: .byValue, lifetime: options.requestObjectLifetime)
        }
        let app = WebApp(options: options, client: client, pendingLogins: stores.pendingLogins, sessions: stores.sessions,
                         logoutTokens: logout, resource: resource, logger: logger,
                         requestObject: requestObject, requestObjects: requestObjects)

        let router = Router(context: AppRequestContext.self)
        app.register(on: router)
        let serverConfiguration = ApplicationConfiguration(address: .hostname("127.0.0.1", port: options.port))
        let application: Application<RouterResponder<AppRequestContext>>
        if let certificate = options.tlsCertificatePath, let key = options.tlsKeyPath {
            // https; a client certificate is asked for and, when sent, verified against --tls-client-ca
            // (optional: /api/resource needs it only for certificate-bound tokens).
            var tls = TLSConfiguration.makeServerConfiguration(certificateChain: try NIOSSLCertificate.fromPEMFile(certificate).map { .certificate($0) },
                                                               privateKey: .privateKey(try NIOSSLPrivateKey(file: key, format: .pem)))
            if let clientCA = options.tlsClientCAPath {
                tls.trustRoots = .file(clientCA)
                tls.certificateVerification = .optionalVerification
            }
            application = Application(router: router, server: try .tls(.http1(), tlsConfiguration: tls), configuration: serverConfiguration, logger: logger)
        } else {
            application = Application(router: router, configuration: serverConfiguration, logger: logger)
        }
        logger.info("listening", metadata: ["address": "127.0.0.1:\(options.port)", "base_url": "\(options.baseURL.absoluteString)",
                                            "issuer": "\(client.issuer)", "store": "\(database == nil ? "memory" : "postgresql")",
                                            "request_object": "\(options.requestObject?.rawValue ?? "off")"])
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
