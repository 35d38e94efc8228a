import Foundation
import Logging
import NIOSSL
import OIDC
import OIDCPostgres
import OIDCResourceServer
import OIDCSession
import Vapor
import X509

/// The sample web application on Vapor 4: the same command line, routes, cookies and answers as the
/// Hummingbird app (Samples/vapor-app/README.md), through the same shared code (Samples/web-app-shared).
@main
struct VaporApp {
    /// Flags of the Hummingbird app this app does not serve (yet): answered with a usage error naming the flag.
    static let notServed = ["--mcp", "--mcp-require-scope"]

    static func main() async {
        let options: Options
        do {
            let arguments = Array(CommandLine.arguments.dropFirst())
            for argument in arguments {
                let name = String(argument.split(separator: "=", maxSplits: 1).first ?? "")
                if notServed.contains(name) || name.hasPrefix("--ssf-") {
                    throw Options.UsageError(description: "\(name) is served by hummingbird-app only, not by vapor-app")
                }
            }
            options = try Options.parse(arguments, program: "vapor-app")
        } catch {
            FileHandle.standardError.write(Data("vapor-app: \(error)\n".utf8))
            exit(2)
        }
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = options.logLevel
            return handler
        }
        let logger = Logger(label: "vapor-app")
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
        let observer = FanOutObserver(observers: [LoggingObserver(logger: Logger(label: "oidc")), MetricsObserver()])
        let identity = try options.tlsClientCertificatePath.map { path in
            (chain: try NIOSSLCertificate.fromPEMFile(path), key: try NIOSSLPrivateKey(file: options.tlsClientKeyPath ?? "", format: .pem))
        }
        let http = AsyncHTTPClientTransport.make(clientCertificate: identity, trustRoots: options.tlsCAFilePath)
        let transport = TracingTransport(base: http)
        let stores =
            options.databaseURL == nil
            ? AppStores.inMemory(options) : try await AppStores.postgres(url: options.databaseURL ?? "", options: options, issuer: options.issuer)
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
            issuer: options.issuer, authentication: try options.authentication(), transport: transport, configuration: configuration)
        guard case .cache(let keys) = client.providerKeys else { throw OIDCError(.jwksURIMissing, "the provider publishes no jwks_uri") }
        let resource = try await ProtectedResource(
            options: options, client: client, keys: keys, transport: transport, replays: stores.dpopProofReplays, observer: observer)
        var requestObject: RequestObject.Configuration?
        var requestObjects: RequestObjectHost?
        if let signature = requestObjectSignature {
            if options.requestObject == .byReference {
                requestObjects = RequestObjectHost(
                    store: stores.requestObjects, baseURL: options.baseURL.absoluteString, lifetime: options.requestObjectLifetime, logger: logger)
            }
            requestObject = RequestObject.Configuration(
                signature: signature, encryption: options.requestObjectEncrypted ? RequestObject.Encryption() : nil,
                delivery: .byValue, lifetime: options.requestObjectLifetime)
        }
        let web = WebApp(
            options: options, client: client, pendingLogins: stores.pendingLogins, sessions: stores.sessions, resource: resource, logger: logger,
            requestObject: requestObject, requestObjects: requestObjects)

        // Vapor reads its own commands from the arguments it is given: none (ours are parsed above), so `serve`.
        let app = try await Application.make(Environment(name: "production", arguments: ["vapor-app"]))
        app.logger = logger
        app.oidcClient = client
        // No request log line of Vapor's (the Hummingbird app has none); errors: Vapor's answer, a toolkit error's by its category.
        app.middleware = Middlewares()
        app.middleware.use(ErrorMiddleware.default(environment: app.environment))
        app.middleware.use(OIDCErrorMiddleware())
        app.http.server.configuration.hostname = "127.0.0.1"
        app.http.server.configuration.port = options.port
        app.http.server.configuration.supportVersions = [.one]
        if let certificate = options.tlsCertificatePath, let key = options.tlsKeyPath {
            app.http.server.configuration.tlsConfiguration = try serverTLS(certificate: certificate, key: key, clientCA: options.tlsClientCAPath)
        }
        web.register(on: app)
        logger.info(
            "listening",
            metadata: [
                "address": "127.0.0.1:\(options.port)", "base_url": "\(options.baseURL.absoluteString)",
                "issuer": "\(client.issuer)", "store": "\(database == nil ? "memory" : "postgresql")",
                "request_object": "\(options.requestObject?.rawValue ?? "off")",
            ])
        do {
            try await app.execute()
        } catch {
            try? await app.asyncShutdown()
            try? await http.shutdown()
            database?.close()
            throw error
        }
        try? await app.asyncShutdown()
        try? await http.shutdown()
        database?.close()
    }

    /// https with `certificate` and `key`; with `clientCA`, a client certificate is asked for (optional) and, when
    /// sent, verified against it here, so that Vapor keeps the verified chain for `Request.clientCertificate`.
    static func serverTLS(certificate: String, key: String, clientCA: String?) throws -> TLSConfiguration {
        var tls = TLSConfiguration.makeServerConfiguration(
            certificateChain: try NIOSSLCertificate.fromPEMFile(certificate).map { .certificate($0) },
            privateKey: .privateKey(try NIOSSLPrivateKey(file: key, format: .pem)))
        guard let clientCA else { return tls }
        let roots = CertificateStore(try NIOSSLCertificate.fromPEMFile(clientCA).map { try Certificate(derEncoded: try $0.toDERBytes()) })
        tls.certificateVerification = .optionalVerification
        tls.customCertificateVerifyCallbackWithMetadata = { presented, promise in
            promise.completeWithTask {
                guard let chain = try? presented.map({ try Certificate(derEncoded: try $0.toDERBytes()) }), let leaf = chain.first else {
                    return .failed
                }
                var verifier = Verifier(rootCertificates: roots) { RFC5280Policy(validationTime: Date()) }
                guard case .validCertificate = await verifier.validate(leaf: leaf, intermediates: CertificateStore(chain.dropFirst())) else {
                    return .failed
                }
                return .certificateVerified(VerificationMetadata(NIOSSL.ValidatedCertificateChain(presented)))
            }
        }
        return tls
    }
}
