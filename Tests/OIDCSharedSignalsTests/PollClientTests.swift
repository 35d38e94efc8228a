import Foundation
import JOSE
import OIDCSharedSignals
import Testing

/// RFC 8936 polling against the scripted transmitter: `maxEvents`, `moreAvailable`, acknowledgements in the next
/// request, `setErrs` for refused SETs, and the wait after a failure (`Retry-After`, then a doubling backoff).
@Suite("Shared Signals poll client", .enabled(if: Transmitter.available))
struct PollClientTests {
    static func pollStream(_ receiver: SharedSignalsReceiver) async throws -> SharedSignalsReceiver.PollRequest {
        let stream = try await receiver.createStream(.poll(eventsRequested: [.sessionRevoked, .verification]))
        return SharedSignalsReceiver.PollRequest(endpoint: try #require(stream.endpointURL))
    }

    @Test("maxEvents and moreAvailable; acks and setErrs go with the next poll; processed like pushed SETs")
    func acknowledgements() async throws {
        try await Transmitter.with { transmitter in
            let ended = Counter()
            let receiver = try await transmitter.receiver { configuration in
                configuration.sessions = { _ in [.custom(end: { await ended.add() }, refresh: {})] }
            }
            var request = try await Self.pollStream(receiver)
            var jtis: [String] = []
            for subject in ["a", "b"] {
                jtis.append(
                    try #require(
                        try await transmitter.control("emit", Transmitter.event(Transmitter.caep + "session-revoked", subject: subject))["jti"]?.stringValue))
            }
            let bad = try #require(
                try await transmitter.control("emit", Transmitter.event(Transmitter.caep + "session-revoked", extra: ["claims": .object(["aud": "x"])]))["jti"]?
                    .stringValue)
            request.maxEvents = 2
            let first = await receiver.poll(request)
            #expect(first.error == nil && first.outcomes.count == 2 && first.moreAvailable && first.retryAfter == .zero)
            #expect(first.outcomes.compactMap(\.token?.jwtID) == jtis)
            #expect(try await transmitter.log()["acks"] == .array([]))
            let second = await receiver.poll(request)
            #expect(second.error == nil && second.outcomes.count == 1 && !second.moreAvailable && second.retryAfter == nil)
            #expect(second.outcomes.first?.error?.code == .audienceMismatch)
            #expect(try await transmitter.log()["acks"] == .array(jtis.map { .string($0) }))
            let third = await receiver.poll(request)
            #expect(third.outcomes.isEmpty)
            let log = try await transmitter.log()
            #expect(log["set_errs"]?.objectValue?[bad]?.objectValue?["err"] == "invalid_audience")
            #expect(log["queued"] == .integer(0))
            #expect(await ended.value == 2)
        }
    }

    @Test("a SET delivered again after its ack was lost is acknowledged, not acted on twice")
    func redelivered() async throws {
        try await Transmitter.with { transmitter in
            let ended = Counter()
            let receiver = try await transmitter.receiver { configuration in
                configuration.sessions = { _ in [.custom(end: { await ended.add() }, refresh: {})] }
            }
            let request = try await Self.pollStream(receiver)
            let token = try await transmitter.sign(Transmitter.event(Transmitter.caep + "session-revoked"))
            #expect(await receiver.process(token).sessionsAffected == 1)
            let again = await receiver.process(token)  // as a second poll would bring it
            #expect(again.isAcknowledged && again.sessionsAffected == 0)
            #expect(await ended.value == 1)
            _ = request
        }
    }

    @Test("503 with Retry-After: wait that long; 500 without: 1 s, then 2 s; acks kept for the next successful poll")
    func backoff() async throws {
        try await Transmitter.with { transmitter in
            let receiver = try await transmitter.receiver()
            let request = try await Self.pollStream(receiver)
            let jti = try #require(try await transmitter.control("emit", Transmitter.event(Transmitter.caep + "session-revoked"))["jti"]?.stringValue)
            #expect(await receiver.poll(request).outcomes.count == 1)
            try await transmitter.control("fail-poll", ["status": 503, "retry_after": "7"])
            let unavailable = await receiver.poll(request)
            #expect(unavailable.error?.code == .transmitterUnavailable && unavailable.error?.httpStatus == 503)
            #expect(unavailable.retryAfter == .seconds(7))
            try await transmitter.control("fail-poll", ["status": 500, "times": 2])
            #expect(await receiver.poll(request).retryAfter == .seconds(2))  // the second failure in a row
            #expect(await receiver.poll(request).retryAfter == .seconds(4))
            try await transmitter.control("fail-poll", ["status": 429, "retry_after": "100000"])
            #expect(await receiver.poll(request).retryAfter == SharedSignalsReceiver.maximumBackoff)
            #expect(try await transmitter.log()["acks"] == .array([]))
            let ok = await receiver.poll(request)
            #expect(ok.error == nil && ok.retryAfter == nil)
            #expect(try await transmitter.log()["acks"] == .array([.string(jti)]))
            try await transmitter.control("fail-poll", ["status": 500])
            #expect(await receiver.poll(request).retryAfter == .seconds(1))  // the count restarted after the success
        }
    }

    @Test("Retry-After as an HTTP date (RFC 9110 §10.2.3): the wait until it; a date past is 0; an unreadable one counts as absent")
    func retryAfterDate() async throws {
        try await Transmitter.with { transmitter in
            let now = Date(timeIntervalSince1970: 1_800_000_000)  // Fri, 15 Jan 2027 08:00:00 GMT
            let receiver = try await transmitter.receiver { $0.clock = { now } }
            let request = try await Self.pollStream(receiver)
            try await transmitter.control("fail-poll", ["status": 503, "retry_after": "Fri, 15 Jan 2027 08:00:42 GMT"])
            let unavailable = await receiver.poll(request)
            #expect(unavailable.error?.httpStatus == 503 && unavailable.retryAfter == .seconds(42))
            try await transmitter.control("fail-poll", ["status": 429, "retry_after": "Sun, 06 Nov 1994 08:49:37 GMT"])
            #expect(await receiver.poll(request).retryAfter == .zero)
            try await transmitter.control("fail-poll", ["status": 503, "retry_after": "Sunday, 06-Nov-94 08:49:37 GMT"])
            #expect(await receiver.poll(request).retryAfter == .seconds(4))  // the third failure in a row, as if absent
        }
    }

    @Test("the poll endpoint needs the management token; a refusal is transmitter_refused")
    func pollAuthorization() async throws {
        try await Transmitter.with { transmitter in
            let request = try await Self.pollStream(try await transmitter.receiver())
            let stranger = try await transmitter.receiver { $0.managementToken = .bearer("wrong") }
            let result = await stranger.poll(request)
            #expect(result.error?.code == .transmitterRefused && result.error?.httpStatus == 401)
        }
    }
}
