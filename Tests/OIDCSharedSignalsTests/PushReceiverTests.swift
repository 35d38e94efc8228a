import Foundation
import JOSE
import OIDCSharedSignals
import Testing

/// RFC 8935 push delivery against the scripted transmitter: each refusal with its RFC 8935 §2.4 `err`, the
/// authorization rule, and a repeated `jti` acknowledged and acted on once.
@Suite("Shared Signals push receiver", .enabled(if: Transmitter.available))
struct PushReceiverTests {
    /// Pushes `token` and returns the status and the `err` of the answer (nil for an empty body).
    static func push(_ receiver: SharedSignalsReceiver, _ token: String, headers: HeaderFields = Transmitter.pushHeaders) async throws -> (Int, String?) {
        let answer = await receiver.receive(method: "POST", headers: headers, body: Array(token.utf8))
        guard !answer.response.body.isEmpty else { return (answer.response.status, nil) }
        let body = try JSONParser.parseObject(answer.response.body, what: "answer")
        #expect(body["description"]?.stringValue?.isEmpty == false)
        #expect(answer.response.headers["Content-Type"] == "application/json")
        return (answer.response.status, body["err"]?.stringValue)
    }

    @Test("a valid SET: 202 with an empty body, typed event and iss_sub subject")
    func accepted() async throws {
        try await Transmitter.with { transmitter in
            let receiver = try await transmitter.receiver()
            let token = try await transmitter.sign(Transmitter.event(Transmitter.caep + "session-revoked", extra: ["claims": .object(["txn": "t-1"])]))
            let answer = await receiver.receive(method: "POST", headers: Transmitter.pushHeaders, body: Array(token.utf8))
            #expect(answer.response.status == 202 && answer.response.body.isEmpty)
            let set = try #require(answer.outcome?.token)
            #expect(set.issuer == transmitter.issuer && set.transaction == "t-1" && set.audience == ["receiver"])
            #expect(set.event.kind == .sessionRevoked && set.event.effect == .endSessions)
            #expect(set.subject == .issuerSubject(issuer: "https://op.example", subject: "alice"))
        }
    }

    @Test("each refusal answers 400 with its RFC 8935 err code")
    func refusals() async throws {
        try await Transmitter.with { transmitter in
            let receiver = try await transmitter.receiver()
            let revoked = Transmitter.caep + "session-revoked"
            func refused(_ spec: JSONObject) async throws -> (Int, String?, String?) {
                let token = try await transmitter.sign(spec)
                let answer = await receiver.receive(method: "POST", headers: Transmitter.pushHeaders, body: Array(token.utf8))
                let body = answer.response.body.isEmpty ? [:] : try JSONParser.parseObject(answer.response.body, what: "answer")
                return (answer.response.status, body["err"]?.stringValue, answer.outcome?.error?.code.rawValue)
            }
            let now = Int64(Date().timeIntervalSince1970)
            let cases: [(JSONObject, String, String)] = [
                (Transmitter.event(revoked, extra: ["header": .object(["typ": "JWT"])]), "invalid_request", "unexpected_token_type"),
                (Transmitter.event(revoked, extra: ["header": .object(["typ": .null])]), "invalid_request", "unexpected_token_type"),
                (Transmitter.event(revoked, extra: ["key": "rsa3072"]), "invalid_key", "signing_key_not_found"),
                (Transmitter.event(revoked, extra: ["key": "rsa3072", "header": .object(["kid": "rsa2048-t7tSXKgx"])]), "invalid_key", "invalid_signature"),
                (Transmitter.event(revoked, extra: ["claims": .object(["iss": "https://someone-else.example"])]), "invalid_issuer", "issuer_mismatch"),
                (Transmitter.event(revoked, extra: ["claims": .object(["aud": "another-receiver"])]), "invalid_audience", "audience_mismatch"),
                (Transmitter.event(revoked, extra: ["claims": .object(["iat": .integer(now + 3600)])]), "invalid_request", "issued_in_future"),
                (
                    Transmitter.event(revoked, extra: ["claims": .object(["iat": .integer(now - 2 * 86_400)])]), "invalid_request",
                    "invalid_security_event_token"
                ),
                (Transmitter.event(revoked, extra: ["drop": .array(["jti"])]), "invalid_request", "invalid_security_event_token"),
                (Transmitter.event(revoked, extra: ["drop": .array(["iat"])]), "invalid_request", "invalid_security_event_token"),
                (Transmitter.event(revoked, extra: ["drop": .array(["sub_id"])]), "invalid_request", "invalid_security_event_token"),
                (Transmitter.event(revoked, extra: ["drop": .array(["iss"])]), "invalid_request", "invalid_security_event_token"),
                (
                    ["events": .object([revoked: [:], Transmitter.risc + "account-disabled": [:]]), "sub_id": .object(["format": "opaque", "id": "x"])],
                    "invalid_request", "security_event_count"
                ),
                (["events": .object([:]), "sub_id": .object(["format": "opaque", "id": "x"])], "invalid_request", "security_event_count"),
                (
                    ["events": .object([revoked: "not an object"]), "sub_id": .object(["format": "opaque", "id": "x"])], "invalid_request",
                    "invalid_security_event_token"
                ),
                (["sub_id": .object(["format": "email"])], "invalid_request", "invalid_security_event_token"),
            ]
            for (spec, err, code) in cases {
                let (status, answered, refusal) = try await refused(spec)
                #expect(status == 400 && answered == err && refusal == code, "\(spec.jsonString()) → \(status) \(answered ?? "-") \(refusal ?? "-")")
            }
        }
    }

    @Test("alg none and a garbled token are refused, never accepted")
    func unsignedAndMalformed() async throws {
        try await Transmitter.with { transmitter in
            let receiver = try await transmitter.receiver()
            let token = try await transmitter.sign(Transmitter.event(Transmitter.caep + "session-revoked"))
            let parts = token.split(separator: ".")
            let none = Base64URL.encode(Array(#"{"alg":"none","typ":"secevent+jwt"}"#.utf8)) + "." + parts[1] + "."
            let (status, err) = try await Self.push(receiver, none)
            #expect(status == 400 && err != nil)
            let (garbledStatus, garbledErr) = try await Self.push(receiver, "not.a.jwt")
            #expect(garbledStatus == 400 && garbledErr != nil)
        }
    }

    @Test("authorization: missing or wrong is 401 authentication_failed; the stream's header is 202; wrong type 400; GET 405")
    func authorization() async throws {
        try await Transmitter.with { transmitter in
            let receiver = try await transmitter.receiver { $0.pushAuthorization = "Bearer push-secret" }
            let token = try await transmitter.sign(Transmitter.event(Transmitter.caep + "session-revoked"))
            let missing = try await Self.push(receiver, token)
            #expect(missing.0 == 401 && missing.1 == "authentication_failed")
            var wrong = Transmitter.pushHeaders
            wrong["Authorization"] = "Bearer push-secreT"
            #expect(try await Self.push(receiver, token, headers: wrong).0 == 401)
            var right = Transmitter.pushHeaders
            right["Authorization"] = "Bearer push-secret"
            var plain = right
            plain["Content-Type"] = "application/jwt"
            let typed = try await Self.push(receiver, token, headers: plain)
            #expect(typed.0 == 400 && typed.1 == "invalid_request")
            #expect(try await Self.push(receiver, token, headers: right).0 == 202)
            #expect(await receiver.receive(method: "GET", headers: right, body: []).response.status == 405)
        }
    }

    @Test("a repeated jti is acknowledged (202) and acted on once")
    func replay() async throws {
        try await Transmitter.with { transmitter in
            let ended = Counter()
            let receiver = try await transmitter.receiver { configuration in
                configuration.sessions = { _ in [.custom(end: { await ended.add() }, refresh: {})] }
            }
            let token = try await transmitter.sign(Transmitter.event(Transmitter.caep + "session-revoked"))
            let first = await receiver.receive(method: "POST", headers: Transmitter.pushHeaders, body: Array(token.utf8))
            let second = await receiver.receive(method: "POST", headers: Transmitter.pushHeaders, body: Array(token.utf8))
            #expect(first.response.status == 202 && second.response.status == 202 && second.response.body.isEmpty)
            #expect(first.outcome?.sessionsAffected == 1 && second.outcome?.sessionsAffected == 0)
            #expect(second.outcome?.error?.code == .replayedSecurityEventToken && second.outcome?.isAcknowledged == true)
            #expect(await ended.value == 1)
        }
    }
}

actor Counter {
    private(set) var value = 0
    private(set) var subjects: [SubjectIdentifier] = []
    func add(_ subject: SubjectIdentifier? = nil) {
        value += 1
        if let subject { subjects.append(subject) }
    }
}
