import Foundation
import JOSE
import OIDCSharedSignals
import Testing

/// The OpenID Foundation's SSF receiver test plan (`openid-ssf-receiver-test-plan`), its modules reproduced by the
/// scripted transmitter: each test plays the module's transmitter side against ``SharedSignalsReceiver``.
/// The pushed requests are the ones the transmitter would send (its log keeps each), handed to the push receiver.
@Suite("SSF receiver test plan (OpenID Foundation modules)", .enabled(if: Transmitter.available))
struct ReceiverTestPlanTests {
    static let events: [SecurityEventType] = [.sessionRevoked, .credentialChange, .accountDisabled, .accountPurged, .verification, .streamUpdated]

    /// A push receiver with a stream created for it (authorization `Bearer push-secret`).
    static func pushReceiver(_ transmitter: Transmitter, _ change: (inout SharedSignalsReceiver.Configuration) -> Void = { _ in })
        async throws -> (SharedSignalsReceiver, String)
    {
        let receiver = try await transmitter.receiver {
            $0.pushAuthorization = "Bearer push-secret"
            change(&$0)
        }
        let stream = try await receiver.createStream(
            .push(to: URL(string: "https://rp.example/ssf/events")!, authorization: "Bearer push-secret", eventsRequested: events))
        return (receiver, try #require(stream.streamID))
    }

    /// Hands every request the transmitter pushed since `seen` to the receiver; returns their outcomes.
    static func deliverPushed(_ transmitter: Transmitter, to receiver: SharedSignalsReceiver, after seen: inout Int) async throws
        -> [SharedSignalsReceiver.PushAnswer]
    {
        let pushed = try await transmitter.log()["pushed"]?.arrayValue ?? []
        var answers: [SharedSignalsReceiver.PushAnswer] = []
        for request in pushed.dropFirst(seen) {
            let object = try #require(request.objectValue)
            var headers = HeaderFields()
            for header in object["headers"]?.objectValue ?? [:] { headers[header.name] = header.value.stringValue }
            answers.append(await receiver.receive(method: "POST", headers: headers, body: Array((object["body"]?.stringValue ?? "").utf8)))
        }
        seen = pushed.count
        return answers
    }

    @Test("openid-ssf-receiver-happypath: create a push stream, verify it, receive a session-revoked SET and act, delete")
    func happyPath() async throws {
        try await Transmitter.with { transmitter in
            let ended = Counter()
            let (receiver, id) = try await Self.pushReceiver(transmitter) { configuration in
                configuration.sessions = { _ in [.custom(end: { await ended.add() }, refresh: {})] }
            }
            var seen = 0
            try await receiver.requestVerification(streamID: id, state: "happy-state")
            let verification = try await Self.deliverPushed(transmitter, to: receiver, after: &seen)
            #expect(verification.map(\.response.status) == [202])
            #expect(verification.first?.outcome?.token?.event.kind == .verification(state: "happy-state"))
            try await transmitter.control("emit", Transmitter.event(Transmitter.caep + "session-revoked"))
            let revoked = try await Self.deliverPushed(transmitter, to: receiver, after: &seen)
            #expect(revoked.map(\.response.status) == [202] && revoked.first?.outcome?.sessionsAffected == 1)
            #expect(await ended.value == 1)
            try await receiver.deleteStream(id: id)
            #expect(try await transmitter.log()["stream"] == .null)
        }
    }

    @Test("openid-ssf-receiver-stream-create-delete: the created stream carries the requested delivery and events; deleted, it is gone")
    func streamCreateDelete() async throws {
        try await Transmitter.with { transmitter in
            let (receiver, id) = try await Self.pushReceiver(transmitter)
            let stream = try await receiver.stream(id: id)
            #expect(stream.deliveryMethod == StreamConfiguration.pushMethod)
            #expect(stream.json["delivery"]?.objectValue?["authorization_header"] == "Bearer push-secret")
            #expect(Set(stream.eventsRequested) == Set(Self.events))
            try await receiver.deleteStream(id: id)
            await #expect(throws: OIDCError.self) { try await receiver.stream(id: id) }
        }
    }

    @Test("openid-ssf-receiver-stream-status-update: paused then enabled, each change announced by a stream-updated SET")
    func streamStatusUpdate() async throws {
        try await Transmitter.with { transmitter in
            let (receiver, id) = try await Self.pushReceiver(transmitter)
            var seen = 0
            #expect(try await receiver.updateStreamStatus(id: id, to: "paused", reason: "receiver maintenance").status == "paused")
            #expect(try await receiver.streamStatus(id: id).status == "paused")
            #expect(try await receiver.updateStreamStatus(id: id, to: "enabled").status == "enabled")
            let answers = try await Self.deliverPushed(transmitter, to: receiver, after: &seen)
            #expect(answers.map(\.response.status) == [202, 202])
            #expect(
                answers.compactMap(\.outcome?.token?.event.kind)
                    == [.streamUpdated(status: "paused", reason: "receiver maintenance"), .streamUpdated(status: "enabled", reason: nil)])
        }
    }

    @Test("openid-ssf-receiver-stream-verification: the verification SET comes back with the receiver's state")
    func streamVerification() async throws {
        try await Transmitter.with { transmitter in
            let (receiver, id) = try await Self.pushReceiver(transmitter)
            var seen = 0
            try await receiver.requestVerification(streamID: id, state: "st-42")
            let answers = try await Self.deliverPushed(transmitter, to: receiver, after: &seen)
            #expect(answers.count == 1 && answers.first?.response.status == 202)
            let token = try #require(answers.first?.outcome?.token)
            #expect(token.event.kind == .verification(state: "st-42") && token.subject == .opaque(id))
        }
    }

    @Test("openid-ssf-receiver-unsolicited-stream-verification: a verification SET nobody asked for is accepted, with no state")
    func unsolicitedVerification() async throws {
        try await Transmitter.with { transmitter in
            let (receiver, id) = try await Self.pushReceiver(transmitter)
            var seen = 0
            try await transmitter.control(
                "emit", ["events": .object([Transmitter.ssf + "verification": [:]]), "sub_id": .object(["format": "opaque", "id": .string(id)])])
            let answers = try await Self.deliverPushed(transmitter, to: receiver, after: &seen)
            #expect(answers.map(\.response.status) == [202])
            #expect(answers.first?.outcome?.token?.event.kind == .verification(state: nil))
        }
    }

    @Test("openid-ssf-receiver-supported-events: every delivered event type is accepted and read as its type")
    func supportedEvents() async throws {
        try await Transmitter.with { transmitter in
            let (receiver, id) = try await Self.pushReceiver(transmitter)
            let delivered = try await receiver.stream(id: id).eventsDelivered
            #expect(Set(delivered) == Set(Self.events))
            var seen = 0
            for type in delivered {
                try await transmitter.control("emit", Transmitter.event(type.rawValue))
            }
            let answers = try await Self.deliverPushed(transmitter, to: receiver, after: &seen)
            #expect(answers.map(\.response.status) == Array(repeating: 202, count: delivered.count))
            #expect(answers.compactMap(\.outcome?.token?.event.type) == delivered)
            #expect(answers.allSatisfy { $0.outcome?.token?.event.kind != .unknown })
        }
    }
}
