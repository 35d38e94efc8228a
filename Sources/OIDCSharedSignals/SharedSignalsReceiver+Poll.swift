import JOSE

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension SharedSignalsReceiver {
    /// What one poll request asks (RFC 8936 §2.4).
    public struct PollRequest: Sendable {
        /// The stream's poll endpoint (its delivery `endpoint_url`).
        public var endpoint: URL
        /// `maxEvents`: the most SETs to return (default 100; 0 only acknowledges).
        public var maxEvents: Int = 100
        /// `returnImmediately`: answer at once rather than wait for a SET (default `true`).
        public var returnImmediately: Bool = true
        /// The client-side timeout of a long poll, in seconds (default 30).
        public var timeout: TimeInterval = 30

        /// A request to `endpoint`.
        public init(endpoint: URL) { self.endpoint = endpoint }
    }

    /// What one poll brought.
    public struct PollResult: Sendable {
        /// What became of each SET returned, in the order of their `jti`s.
        public let outcomes: [Outcome]
        /// `moreAvailable`: the transmitter holds more SETs (poll again at once).
        public let moreAvailable: Bool
        /// Why the poll failed (the acknowledgements stay due for the next one); `nil` when it succeeded.
        public let error: OIDCError?
        /// How long to wait before the next poll: zero when more are available, the `Retry-After` of a 429 or 503 (seconds or an HTTP date)
        /// (at most ``maximumBackoff``), a doubling backoff after other failures, `nil` after an ordinary success
        /// (the application's interval).
        public let retryAfter: Duration?
    }

    /// The longest wait ``PollResult/retryAfter`` asks for: five minutes.
    public static let maximumBackoff: Duration = .seconds(300)

    /// Polls the stream once (RFC 8936): acknowledges the SETs accepted since the last successful poll (`ack`),
    /// reports the refused ones (`setErrs`, with their RFC 8935 `err` codes), and processes the returned `sets` through
    /// ``process(_:)``; the acknowledgements of these go with the next poll.
    ///
    /// Never throws: a failed poll is in the result, with how long to wait.
    public func poll(_ request: PollRequest) async -> PollResult {
        let (acks, errors) = await ledger.due()
        var body: JSONObject = ["maxEvents": .integer(Int64(max(0, request.maxEvents))), "returnImmediately": .bool(request.returnImmediately)]
        body["ack"] = .array(acks.map { .string($0) })
        if !errors.isEmpty {
            var setErrs = JSONObject()
            for (jti, error) in errors.sorted(by: { $0.key < $1.key }) { setErrs[jti] = .object(error) }
            body["setErrs"] = .object(setErrs)
        }
        let object: JSONObject
        do {
            var call = TransportRequest(
                method: .post, url: request.endpoint, headers: ["Content-Type": "application/json", "Accept": "application/json"],
                body: .bytes(Array(JSONValue.object(body).jsonString().utf8)), timeout: request.timeout)
            if let token = try await managementAccessToken() { call.headers["Authorization"] = "Bearer " + token }
            var fetch = TransmitterCall.fetch(.pollEndpoint, issuer: configuration.transmitter)
            fetch.accepted = 100...599  // the status is judged here, with its Retry-After
            let response = try await fetch.send(call, via: transport)
            guard (200...299).contains(response.status) else {
                let failure = fetch.statusFailure(response)
                // Retry-After of a 429 or 503, delta-seconds or an HTTP date (RFC 9110 §10.2.3): the package's one reader.
                let asked = response.status == 429 || response.status == 503 ? response.headers["Retry-After"] : nil
                let wait = await ledger.failed(failure, retryAfter: asked.flatMap { RetryAfter.wait($0, now: configuration.clock()) })
                return PollResult(outcomes: [], moreAvailable: false, error: failure, retryAfter: wait)
            }
            object = try fetch.object(from: response)
        } catch {
            let failure = error as? OIDCError ?? OIDCError(.transmitterUnavailable, "the poll failed")
            return PollResult(outcomes: [], moreAvailable: false, error: failure, retryAfter: await ledger.failed(failure, retryAfter: nil))
        }
        await ledger.sent(acks: acks, errors: Set(errors.keys))
        guard let sets = object["sets"]?.objectValue else {
            let failure = OIDCError(.invalidTransmitterAnswer, "the poll answer has no \"sets\" object")
            return PollResult(outcomes: [], moreAvailable: false, error: failure, retryAfter: await ledger.failed(failure, retryAfter: nil))
        }
        var outcomes: [Outcome] = []
        for member in sets {
            guard let text = member.value.stringValue else {
                await ledger.refused(member.name, OIDCError(.invalidSecurityEventToken, "the poll answer's SET is not a string"))
                continue
            }
            let outcome = await process(text)
            outcomes.append(outcome)
            if outcome.isAcknowledged {
                await ledger.accepted(member.name)
            } else if !outcome.isReleased, let error = outcome.error, error.code.category == .invalidInput {
                await ledger.refused(member.name, error)
            }  // a failed effect (released), unavailable keys or replay cache: neither acknowledged nor refused, so delivered again
        }
        let more = object["moreAvailable"]?.boolValue ?? false
        await ledger.succeeded()
        return PollResult(outcomes: outcomes, moreAvailable: more, error: nil, retryAfter: more ? .zero : nil)
    }

    /// The management access token, when one is configured.
    func managementAccessToken() async throws -> String? {
        switch configuration.managementToken {
        case .none: return nil
        case .bearer(let token): return token
        case .clientCredentials(let source): return try await source.token().accessToken
        }
    }
}

/// The poll client's memory: the `jti`s to acknowledge and the errors to report with the next poll, and the backoff.
actor PollLedger {
    private var acks: [String] = []
    private var errors: [String: JSONObject] = [:]
    private var failures = 0

    func due() -> ([String], [String: JSONObject]) { (acks, errors) }
    func accepted(_ jti: String) { if !acks.contains(jti) { acks.append(jti) } }
    func refused(_ jti: String, _ error: OIDCError) { errors[jti] = SharedSignalsReceiver.setError(error) }

    /// Forgets what the transmitter was just told.
    func sent(acks sent: [String], errors reported: Set<String>) {
        acks.removeAll { sent.contains($0) }
        for jti in reported { errors[jti] = nil }
    }

    func succeeded() { failures = 0 }

    /// The wait after `error`: `retryAfter` seconds when the transmitter gave them, else 1, 2, 4 … seconds; at most
    /// ``SharedSignalsReceiver/maximumBackoff``.
    func failed(_ error: OIDCError, retryAfter: Int?) -> Duration {
        failures += 1
        if let retryAfter { return min(.seconds(retryAfter), SharedSignalsReceiver.maximumBackoff) }
        return min(.seconds(1 << min(failures - 1, 16)), SharedSignalsReceiver.maximumBackoff)
    }
}
