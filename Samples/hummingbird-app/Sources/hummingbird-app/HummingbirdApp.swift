import Foundation
import Hummingbird
import HummingbirdTLS
import Logging
import NIOCore
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
        // Everything but the server, shared with the Vapor app (Samples/web-app-shared/AppServices.swift).
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
        let app = services.web
        // --mcp: the MCP endpoint, the same front door placed at <base-url>/mcp (its own resource and audience).
        let mcp =
            options.mcp
            ? MCPEndpoint(
                resource: try await ProtectedResource(
                    options: options, client: app.client, keys: services.keys, transport: services.transport,
                    replays: services.stores.dpopProofReplays, observer: services.observer, place: .mcp(options)),
                options: options)
            : nil
        // --ssf-transmitter: the stream created (or reused) before the server listens; verification asked once it does.
        let signals: SignalReceiver?
        do {
            signals = try await SignalReceiver.start(
                options: options, issuer: app.client.issuer, sessions: services.stores.sessions,
                replays: services.stores.securityEventReplays, transport: services.transport, observer: services.observer, logger: logger)
        } catch {
            logger.critical("ssf: cannot start the receiver: \(WebApp.describe(error))")
            throw error
        }
        let router = Router(context: AppRequestContext.self)
        app.register(on: router)
        mcp?.register(on: router)
        signals?.register(on: router)
        let onServerRunning: @Sendable (any Channel) async -> Void = { _ in
            if let signals { Task { await signals.requestVerification() } }
        }
        let polling = Task { await signals?.pollUntilCancelled() }
        defer { polling.cancel() }
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
            application = Application(
                router: router, server: try .tls(.http1(), tlsConfiguration: tls), configuration: serverConfiguration,
                onServerRunning: onServerRunning, logger: logger)
        } else {
            application = Application(router: router, configuration: serverConfiguration, onServerRunning: onServerRunning, logger: logger)
        }
        services.logListening(
            logger,
            extra: [
                "mcp": "\(mcp.map { $0.resource.url.absoluteString } ?? "off")",
                "ssf": "\(signals.map { "\($0.delivery.rawValue) stream \($0.streamID)" } ?? "off")",
            ])
        try await application.runService()
    }
}
