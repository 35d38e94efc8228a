import Foundation
import JOSE
import OIDCSharedSignals
import Testing

/// Transmitter discovery (SSF 1.0 §7) and stream management (§8) against the scripted transmitter.
@Suite("Shared Signals discovery and streams", .enabled(if: Transmitter.available))
struct StreamManagementTests {
    @Test("discovery reads the endpoints; another issuer, an http endpoint off loopback, a non-https transmitter are refused")
    func discovery() async throws {
        try await Transmitter.with { transmitter in
            let metadata = try await TransmitterMetadata.discover(transmitter.issuer, transport: transmitter.transport)
            #expect(metadata.issuer == transmitter.issuer)
            #expect(metadata.configurationEndpoint?.absoluteString == transmitter.issuer + "/streams")
            #expect(metadata.deliveryMethodsSupported == [StreamConfiguration.pushMethod, StreamConfiguration.pollMethod])
            try await transmitter.control("configuration", ["issuer": "http://127.0.0.1:1"])
            await #expect(throws: OIDCError.self) { try await TransmitterMetadata.discover(transmitter.issuer, transport: transmitter.transport) }
            do {
                _ = try await TransmitterMetadata.discover(transmitter.issuer, transport: transmitter.transport)
            } catch let error as OIDCError {
                #expect(error.code == .transmitterIssuerMismatch)
            }
            try await transmitter.control("configuration", ["issuer": .string(transmitter.issuer), "jwks_uri": "http://keys.example/jwks"])
            do {
                _ = try await TransmitterMetadata.discover(transmitter.issuer, transport: transmitter.transport)
                Issue.record("an http jwks_uri off loopback was accepted")
            } catch let error as OIDCError {
                #expect(error.code == .insecureURL)
            }
        }
        do {
            _ = try await TransmitterMetadata.discover("http://transmitter.example", transport: try LibSSLTransport())
            Issue.record("an http transmitter off loopback was accepted")
        } catch let error as OIDCError {
            #expect(error.code == .insecureURL)
        }
    }

    @Test("create, read, update, replace, delete; a second create is 409; status; subjects; verification")
    func lifecycle() async throws {
        try await Transmitter.with { transmitter in
            let receiver = try await transmitter.receiver()
            let endpoint = URL(string: "https://rp.example/ssf/events")!
            let created = try await receiver.createStream(
                .push(to: endpoint, authorization: "Bearer push-secret", eventsRequested: [.sessionRevoked, .accountPurged, .optIn]))
            let id = try #require(created.streamID)
            #expect(created.deliveryMethod == StreamConfiguration.pushMethod && created.endpointURL == endpoint)
            #expect(created.eventsDelivered == [.sessionRevoked, .accountPurged])  // opt-in is not supported
            do {
                _ = try await receiver.createStream(.poll(eventsRequested: [.sessionRevoked]))
                Issue.record("a second stream was created")
            } catch let error as OIDCError {
                #expect(error.code == .transmitterRefused && error.httpStatus == 409)
            }
            #expect(try await receiver.stream(id: id).streamID == id)
            #expect(try await receiver.streams().map(\.streamID) == [id])  // how a receiver refused with 409 finds its stream
            var change = StreamConfiguration(json: ["stream_id": .string(id)])
            change.eventsRequested = [.credentialChange]
            #expect(try await receiver.updateStream(change).eventsDelivered == [.credentialChange])
            #expect(try await receiver.stream(id: id).endpointURL == endpoint)  // PATCH kept the delivery
            var replacement = StreamConfiguration.poll(eventsRequested: [.accountDisabled])
            replacement.streamID = id
            let replaced = try await receiver.replaceStream(replacement)
            #expect(replaced.deliveryMethod == StreamConfiguration.pollMethod && replaced.eventsDelivered == [.accountDisabled])

            let status = try await receiver.streamStatus(id: id)
            #expect(status.streamID == id && status.status == "enabled" && status.reason == nil)
            #expect(try await receiver.updateStreamStatus(id: id, to: "paused", reason: "maintenance").status == "paused")
            #expect(try await receiver.streamStatus(id: id).status == "paused")

            try await receiver.addSubject(.email("alice@example.com"), streamID: id, verified: true)
            try await receiver.removeSubject(.issuerSubject(issuer: "https://op.example", subject: "alice"), streamID: id)
            let subjects = try await transmitter.log()["subjects"]?.arrayValue ?? []
            #expect(subjects.count == 2)
            #expect(subjects.first?.objectValue?["subject"] == .object(["format": "email", "email": "alice@example.com"]))
            #expect(subjects.last?.objectValue?["op"] == "remove")

            try await receiver.requestVerification(streamID: id, state: "st-1")
            try await receiver.deleteStream(id: id)
            do {
                _ = try await receiver.stream(id: id)
                Issue.record("a deleted stream was read")
            } catch let error as OIDCError {
                #expect(error.code == .transmitterRefused && error.httpStatus == 404)
            }
            #expect(try await receiver.streams().isEmpty)
        }
    }

    @Test("the management token is sent as Bearer; without it the transmitter's 401 is transmitter_refused")
    func managementToken() async throws {
        try await Transmitter.with { transmitter in
            let stranger = try await transmitter.receiver { $0.managementToken = nil }
            do {
                _ = try await stranger.createStream(.poll(eventsRequested: [.sessionRevoked]))
                Issue.record("created without a token")
            } catch let error as OIDCError {
                #expect(error.code == .transmitterRefused && error.httpStatus == 401)
            }
        }
    }

    @Test("the management token from the client's own client-credentials token source, fetched once for several calls")
    func clientCredentialsToken() async throws {
        try await Transmitter.with { transmitter in
            var metadata = ProviderMetadata(issuer: transmitter.issuer)
            metadata.tokenEndpoint = URL(string: transmitter.issuer + "/token")
            let client = try OIDCClient(
                authorizationServerMetadata: metadata, authentication: .clientSecretBasic(clientID: "rp", secret: "rp-secret"),
                transport: transmitter.transport)
            let receiver = try await transmitter.receiver { $0.managementToken = .clientCredentials(client.clientCredentialsTokenSource()) }
            let stream = try await receiver.createStream(.poll(eventsRequested: [.sessionRevoked]))
            let id = try #require(stream.streamID)
            #expect(try await receiver.streamStatus(id: id).status == "enabled")
            #expect(try await transmitter.log()["token_requests"] == .integer(1))
        }
    }

    @Test("RFC 9493 subject identifiers: every format, aliases, complex, and the refusals")
    func subjectIdentifiers() throws {
        let formats: [(JSONObject, SubjectIdentifier)] = [
            (["format": "iss_sub", "iss": "https://op", "sub": "alice"], .issuerSubject(issuer: "https://op", subject: "alice")),
            (["format": "email", "email": "a@example.com"], .email("a@example.com")),
            (["format": "phone_number", "phone_number": "+12065550100"], .phoneNumber("+12065550100")),
            (["format": "opaque", "id": "11112222"], .opaque("11112222")),
            (["format": "account", "uri": "acct:a@example.com"], .account("acct:a@example.com")),
            (["format": "did", "url": "did:example:123"], .did("did:example:123")),
            (["format": "uri", "uri": "https://example.com/u/1"], .uri("https://example.com/u/1")),
        ]
        for (json, expected) in formats {
            #expect(try SubjectIdentifier(json: json) == expected)
            #expect(expected.json == json)
        }
        let aliases = try SubjectIdentifier(json: ["format": "aliases", "identifiers": .array([.object(formats[0].0), .object(formats[1].0)])])
        #expect(aliases.principals == [formats[0].1, formats[1].1])
        let complex = try SubjectIdentifier(json: [
            "format": "complex", "user": .object(formats[0].0), "session": .object(["format": "opaque", "id": "s-1"]),
            "tenant": .object(["format": "opaque", "id": "t-1"]),
        ])
        #expect(complex.principals == [formats[0].1] && complex.session == .opaque("s-1"))
        #expect(try SubjectIdentifier(json: complex.json) == complex)
        #expect(try SubjectIdentifier(json: ["format": "x-new", "y": 1]) == .other(format: "x-new", members: ["format": "x-new", "y": 1]))
        #expect(!SubjectIdentifier.email("secret@example.com").description.contains("secret"))
        for bad: JSONObject in [
            [:], ["format": "email"], ["format": "iss_sub", "iss": "https://op"], ["format": "opaque", "id": 5],
            ["format": "aliases", "identifiers": .array([])],
            ["format": "aliases", "identifiers": .array([.object(["format": "aliases", "identifiers": .array([.object(formats[1].0)])])])],
            ["format": "complex"], ["format": "complex", "user": "alice"],
        ] {
            #expect(throws: OIDCError.self, "\(bad.jsonString())") { try SubjectIdentifier(json: bad) }
        }
    }

    @Test("the event's own subject member is read for transmitters built on the drafts")
    func legacySubject() async throws {
        try await Transmitter.with { transmitter in
            let receiver = try await transmitter.receiver()
            let token = try await transmitter.sign([
                "events": .object([Transmitter.caep + "session-revoked": .object(["subject": .object(["format": "email", "email": "a@example.com"])])])
            ])
            #expect(await receiver.process(token).token?.subject == .email("a@example.com"))
        }
    }
}
