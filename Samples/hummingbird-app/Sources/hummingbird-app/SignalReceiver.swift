import Foundation
import HTTPTypes
import Hummingbird
import JOSE
import Logging
import NIOCore
import OIDC
import OIDCSharedSignals

/// `--ssf-transmitter`: the app as a Shared Signals receiver (SSF 1.0, CAEP, RISC; README "Shared Signals").
///
/// Everything a SET does goes through the library's `SharedSignalsReceiver`: it validates, keeps the replay record,
/// decides the effect by event type and runs it on the targets this app's one hook gives (``targets(for:)``): the
/// sessions of the user named by `iss_sub` or `email`, ended through the app's own session directory (cookie no
/// longer valid, tokens deleted, in PostgreSQL for every instance).
struct SignalReceiver: Sendable {
    let receiver: SharedSignalsReceiver
    let streamID: String
    let delivery: Options.SSFDelivery
    /// The stream's poll `endpoint_url` (poll delivery).
    let pollEndpoint: URL?
    let counters: SignalCounters
    let pollInterval: Int
    let logger: Logger

    /// The events the stream asks for (the minimum, plus stream-updated for `/ssf/status`).
    static let eventsRequested: [SecurityEventType] = [
        .sessionRevoked, .credentialChange, .accountDisabled, .accountPurged, .verification, .streamUpdated,
    ]

    /// Reads the transmitter's configuration, creates the stream (or, on 409, reuses the existing one: GET, then
    /// PATCH), and makes the receiver that checks pushed requests against the stream's `Authorization` header.
    static func start(
        options: Options, issuer: String, sessions: any SessionDirectory, replays: any ReplayCache, transport: any HTTPTransport,
        observer: any OIDCObserver, logger: Logger
    ) async throws -> SignalReceiver? {
        guard let transmitter = options.ssfTransmitter else { return nil }
        var configuration = SharedSignalsReceiver.Configuration(transmitter: transmitter, audience: options.ssfAudience ?? options.baseURL.absoluteString)
        configuration.transport = transport
        configuration.observer = observer
        configuration.replays = replays
        if let path = options.ssfAccessTokenFile {
            let text: String
            do { text = try String(contentsOfFile: path, encoding: .utf8) } catch {
                throw Options.UsageError(description: "--ssf-access-token-file: \(path) cannot be read")
            }
            let token = text.trimmingCharacters(in: .whitespacesAndNewlines)
            guard !token.isEmpty else { throw Options.UsageError(description: "--ssf-access-token-file: \(path) is empty") }
            configuration.managementToken = .bearer(token)
        }
        configuration.sessions = { subject in try await targets(for: subject, issuer: issuer, sessions: sessions) }
        let management = try await SharedSignalsReceiver.discover(configuration)

        let endpoint = options.url("/ssf/events")
        var wanted: StreamConfiguration =
            options.ssfDelivery == .push
            ? .push(to: endpoint, authorization: "Bearer " + RandomHandle.make(), eventsRequested: eventsRequested)
            : .poll(eventsRequested: eventsRequested)
        wanted.json["aud"] = .string(configuration.audience)  // a transmitter that lets the receiver name it
        let stream: StreamConfiguration
        do {
            stream = try await management.createStream(wanted)
        } catch let error as OIDCError where error.httpStatus == 409 {
            // The receiver already has a stream (another instance, or an earlier run): reuse it. A push stream to the
            // same endpoint keeps its Authorization header, so every instance behind the base URL accepts its pushes.
            guard let existing = try await management.streams().first, let id = existing.streamID else {
                throw OIDCError(.invalidTransmitterAnswer, "the transmitter answered 409 but lists no stream")
            }
            var update = wanted
            update.streamID = id
            let existingDelivery = existing.json["delivery"]?.objectValue
            if options.ssfDelivery == .push, existing.deliveryMethod == StreamConfiguration.pushMethod, existing.endpointURL == endpoint,
                let header = existingDelivery?["authorization_header"]
            {
                var delivery = wanted.json["delivery"]?.objectValue ?? [:]
                delivery["authorization_header"] = header
                update.json["delivery"] = .object(delivery)
            }
            if options.ssfDelivery == .poll, existing.deliveryMethod == StreamConfiguration.pollMethod {
                update.json["delivery"] = existing.json["delivery"]  // keep the transmitter's poll endpoint_url
            }
            update.json["aud"] = nil
            stream = try await management.updateStream(update)
            logger.info("ssf: reusing the existing stream", metadata: ["stream_id": "\(id)"])
        }
        guard let streamID = stream.streamID else {
            throw OIDCError(.invalidTransmitterAnswer, "the transmitter's stream has no stream_id")
        }
        if options.ssfDelivery == .push {
            configuration.pushAuthorization =
                stream.json["delivery"]?.objectValue?["authorization_header"]?.stringValue
                ?? wanted.json["delivery"]?.objectValue?["authorization_header"]?.stringValue
        }
        let receiver = try SharedSignalsReceiver(transmitter: management.transmitter, configuration: configuration)
        let pollEndpoint = options.ssfDelivery == .poll ? stream.endpointURL : nil
        if options.ssfDelivery == .poll, pollEndpoint == nil {
            throw OIDCError(.transmitterEndpointMissing, "the transmitter's poll stream has no endpoint_url")
        }
        logger.info("ssf: stream ready", metadata: ["stream_id": "\(streamID)", "delivery": "\(options.ssfDelivery.rawValue)"])
        return SignalReceiver(
            receiver: receiver, streamID: streamID, delivery: options.ssfDelivery, pollEndpoint: pollEndpoint,
            counters: SignalCounters(state: RandomHandle.make()), pollInterval: options.ssfPollInterval, logger: logger)
    }

    /// The hook: where the sessions of `subject` are. `iss_sub` of the configured provider, or `email` (the ID
    /// Token's), each user found ends every session of that user through the session directory.
    static func targets(for subject: SubjectIdentifier, issuer: String, sessions: any SessionDirectory) async throws
        -> [SharedSignalsReceiver.SessionTarget]
    {
        var users: Set<SessionUser> = []
        for principal in subject.principals {
            switch principal {
            case .issuerSubject(let iss, let sub) where iss == issuer: users.insert(SessionUser(issuer: iss, subject: sub))
            case .email(let email): users.formUnion(try await sessions.users(withEmail: email))
            default: continue
            }
        }
        return users.map { user in
            .custom(
                end: { _ = try await sessions.deleteSessions(issuer: user.issuer, subject: user.subject, sessionID: nil) },
                refresh: {})  // each request builds its session from the store: nothing is held to refresh
        }
    }

    /// Asks for the verification event (SSF 1.0 §8.1.4.2) with this instance's `state`: once the server listens,
    /// as the transmitter may push it at once.
    func requestVerification() async {
        do {
            try await receiver.requestVerification(streamID: streamID, state: counters.state)
        } catch {
            logger.warning("ssf: verification request failed: \(WebApp.describe(error))")
        }
    }

    func register(on router: Router<AppRequestContext>) {
        if delivery == .push {
            router.post("/ssf/events") { request, _ -> Response in
                var request = request
                guard let body = try? await request.collectBody(upTo: 1 << 16) else {
                    return Response(WebAnswer.json(413, "{\"err\":\"invalid_request\",\"description\":\"the body is too large\"}"))
                }
                var headers = HeaderFields()
                for field in request.headers { headers.add(field.name.canonicalName, field.value) }
                let answer = await receiver.receive(method: "POST", headers: headers, body: Array(buffer: body))
                if let outcome = answer.outcome { await counters.record(outcome) }
                if let error = answer.outcome?.error, error.code != .replayedSecurityEventToken {
                    logger.info("ssf: push answered \(answer.response.status): \(WebApp.describe(error))")
                }
                return Response(answer.response)
            }
        }
        router.get("/ssf/status") { _, context -> Response in
            guard Self.isLoopback(context.channel.remoteAddress) else { return Response(WebAnswer.json(403, "{\"error\":\"forbidden\"}")) }
            return Response(WebAnswer.json(200, await counters.json(streamID: streamID, delivery: delivery)))
        }
    }

    static func isLoopback(_ address: SocketAddress?) -> Bool {
        guard let ip = address?.ipAddress else { return false }
        return ip.hasPrefix("127.") || ip == "::1" || ip.hasPrefix("::ffff:127.")
    }

    /// Poll delivery: every interval (or at once when more are available, or after the transmitter's Retry-After),
    /// one RFC 8936 request acknowledging the SETs accepted since the last and reporting the refused ones.
    func pollUntilCancelled() async {
        guard let endpoint = pollEndpoint else { return }
        let request = SharedSignalsReceiver.PollRequest(endpoint: endpoint)  // maxEvents 100, returnImmediately true
        while !Task.isCancelled {
            let result = await receiver.poll(request)
            for outcome in result.outcomes { await counters.record(outcome) }
            if let error = result.error { logger.warning("ssf: poll failed: \(WebApp.describe(error))") }
            try? await Task.sleep(for: result.retryAfter ?? .seconds(pollInterval))
        }
    }
}

/// What `/ssf/status` reports.
actor SignalCounters {
    /// This instance's verification `state`.
    nonisolated let state: String
    private var verified = false
    private var received = 0
    private var acted = 0
    private var status = "enabled"

    init(state: String) { self.state = state }

    /// Counts a SET: received once accepted (a repeat, a refusal or one to be delivered again is not), acted when
    /// its effect ended sessions; the verification carrying this instance's `state`, and stream-updated's status.
    func record(_ outcome: SharedSignalsReceiver.Outcome) {
        guard let token = outcome.token, !outcome.isReleased else { return }
        received += 1
        switch token.event.kind {
        case .verification(let state?) where state == self.state: verified = true
        case .streamUpdated(let status?, _) where ["enabled", "paused", "disabled"].contains(status): self.status = status
        default: break
        }
        if outcome.error == nil, token.event.effect == .endSessions { acted += 1 }
    }

    func json(streamID: String, delivery: Options.SSFDelivery) -> String {
        JSONValue.object([
            "stream_id": .string(streamID), "delivery": .string(delivery.rawValue), "verified": .bool(verified),
            "received": .integer(Int64(received)), "acted": .integer(Int64(acted)), "status": .string(status),
        ]).jsonString(sortedKeys: true)
    }
}
