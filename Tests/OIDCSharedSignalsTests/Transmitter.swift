import Foundation
import JOSE
import OIDCSharedSignals
import TestProcesses
import Testing

/// Tests/SharedSignals/transmitter.py on 127.0.0.1 (a port of 19600–19699): the scripted SSF transmitter, started for
/// one test and stopped after it. Its management token is `mgmt-token`; its SETs are signed with Keys/rsa2048.
struct Transmitter {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../..").standardized
    static let available = FileManager.default.isExecutableFile(atPath: "/usr/bin/python3") || ProcessInfo.processInfo.environment["CI"] == "true"
    static let caep = "https://schemas.openid.net/secevent/caep/event-type/"
    static let risc = "https://schemas.openid.net/secevent/risc/event-type/"
    static let ssf = "https://schemas.openid.net/secevent/ssf/event-type/"

    let child: StartedChild
    let issuer: String
    let transport = try! LibSSLTransport()

    /// Runs `body` with a fresh transmitter, then stops it.
    static func with(_ body: (Transmitter) async throws -> Void) async throws {
        let child = try StartedChild(
            URL(fileURLWithPath: "/usr/bin/env"), ["python3", repository.appendingPathComponent("Tests/SharedSignals/transmitter.py").path])
        defer { child.stop() }
        guard let port = Int(try await child.firstLine(limit: 11)) else { throw TransmitterFailure("the transmitter did not start") }
        try await body(Transmitter(child: child, issuer: "http://127.0.0.1:\(port)"))
    }

    /// A receiver of this transmitter's SETs for `audience`, its keys from the transmitter's `jwks_uri`.
    func receiver(audience: String = "receiver", _ change: (inout SharedSignalsReceiver.Configuration) -> Void = { _ in }) async throws -> SharedSignalsReceiver
    {
        var configuration = SharedSignalsReceiver.Configuration(transmitter: issuer, audience: audience)
        configuration.transport = transport
        configuration.managementToken = .bearer("mgmt-token")
        change(&configuration)
        return try await SharedSignalsReceiver.discover(configuration)
    }

    /// POSTs `body` to `/control/NAME` and returns the JSON answer.
    @discardableResult
    func control(_ name: String, _ body: JSONObject = [:]) async throws -> JSONObject {
        let response = try await transport.send(
            TransportRequest(
                method: name == "log" ? .get : .post, url: URL(string: issuer + "/control/" + name)!,
                headers: ["Content-Type": "application/json"], body: name == "log" ? nil : .bytes(Array(JSONValue.object(body).jsonString().utf8))))
        guard response.status == 200, case .object(let object) = try JSONValue(parsing: response.body) else {
            throw TransmitterFailure("control \(name) answered \(response.status)")
        }
        return object
    }

    /// A SET signed by the transmitter: `/control/sign` with `spec`.
    func sign(_ spec: JSONObject) async throws -> String {
        guard let token = try await control("sign", spec)["set"]?.stringValue else { throw TransmitterFailure("no set") }
        return token
    }

    /// The transmitter's log.
    func log() async throws -> JSONObject { try await control("log") }

    /// A spec of one event of `type` about `iss_sub(issuer, subject)`.
    static func event(_ type: String, subject: String = "alice", members: JSONObject = [:], extra: JSONObject = [:]) -> JSONObject {
        var spec: JSONObject = [
            "events": .object([type: .object(members)]),
            "sub_id": .object(["format": "iss_sub", "iss": "https://op.example", "sub": .string(subject)]),
        ]
        for member in extra { spec[member.name] = member.value }
        return spec
    }

    static let pushHeaders: HeaderFields = ["Content-Type": "application/secevent+jwt"]
}

struct TransmitterFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

extension JSONValue {
    /// Parses JSON bytes (tests only).
    init(parsing bytes: [UInt8]) throws {
        self = .object(try JSONParser.parseObject(bytes, what: "test JSON"))
    }
}
