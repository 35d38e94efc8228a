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
        // Everything but the server, shared with the Hummingbird app (Samples/web-app-shared/AppServices.swift).
        let services = try await AppServices.start(options, logger: logger)
        do {
            try await serve(services, options: options, logger: logger)
        } catch {
            await services.shutdown()
            throw error
        }
        await services.shutdown()
    }

    /// The web server on the services, until it stops; a failure here still shuts the services down (``run``).
    static func serve(_ services: AppServices, options: Options, logger: Logger) async throws {
        // Vapor reads its own commands from the arguments it is given: none (ours are parsed above), so `serve`.
        let app = try await Application.make(Environment(name: "production", arguments: ["vapor-app"]))
        app.logger = logger
        do {
            try await serve(app, services: services, options: options)
        } catch {
            try? await app.asyncShutdown()
            throw error
        }
        try? await app.asyncShutdown()
    }

    /// Vapor's server for the routes, until a signal stops it.
    static func serve(_ app: Application, services: AppServices, options: Options) async throws {
        let logger = app.logger
        let web = services.web
        app.oidcClient = web.client
        // No request log line of Vapor's (the Hummingbird app has none); errors: Vapor's answer, a toolkit error's by its category.
        app.middleware = Middlewares()
        app.middleware.use(ErrorMiddleware.default(environment: app.environment))
        app.middleware.use(OIDCErrorMiddleware())
        app.http.server.configuration.hostname = "127.0.0.1"
        app.http.server.configuration.port = options.port
        app.http.server.configuration.supportVersions = [.one]
        if let certificate = options.tlsCertificatePath, let key = options.tlsKeyPath {
            app.http.server.configuration.tlsConfiguration = try serverTLS(certificate: certificate, key: key, clientCA: options.tlsClientCAPath)
            if let clientCA = options.tlsClientCAPath {
                app.http.server.configuration.customCertificateVerifyCallbackWithMetadata = try clientCertificateVerifier(clientCA)
            }
        }
        web.register(on: app)
        services.logListening(logger)
        try await app.execute()
    }

    /// https with `certificate` and `key`; with `clientCA`, a client certificate is asked for (optional) and, when
    /// sent, verified against it here, so that Vapor keeps the verified chain for `Request.clientCertificate`.
    static func serverTLS(certificate: String, key: String, clientCA: String?) throws -> TLSConfiguration {
        var tls = TLSConfiguration.makeServerConfiguration(
            certificateChain: try NIOSSLCertificate.fromPEMFile(certificate).map { .certificate($0) },
            privateKey: .privateKey(try NIOSSLPrivateKey(file: key, format: .pem)))
        if clientCA != nil { tls.certificateVerification = .optionalVerification }
        return tls
    }

    /// Verifies a client's certificate chain against `clientCA` (swift-certificates, RFC 5280), so Vapor keeps it.
    static func clientCertificateVerifier(
        _ clientCA: String
    ) throws -> @Sendable ([NIOSSLCertificate], EventLoopPromise<NIOSSLVerificationResultWithMetadata>) -> Void {
        let roots = CertificateStore(try NIOSSLCertificate.fromPEMFile(clientCA).map { try Certificate(derEncoded: try $0.toDERBytes()) })
        return { presented, promise in
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
    }
}
