import Foundation
import JOSE
import Testing

@testable import OIDC

/// A clock that only the sleeper moves, and a record of the waits.
final class FakeTime: Sendable {
    private let state = Locked((now: Date(timeIntervalSince1970: 1_800_000_000), waits: [Int]()))
    var now: Date { state.withLock { $0.now } }
    var waits: [Int] { state.withLock { $0.waits } }
    var clock: @Sendable () -> Date { { self.now } }
    var sleeper: PollingSleeper {
        PollingSleeper { seconds in
            self.state.withLock {
                $0.now += TimeInterval(seconds); $0.waits.append(seconds)
            }
        }
    }
}

/// A token endpoint that answers the polls from a script, then repeats the last answer.
func scriptedTokenEndpoint(_ script: [(Int, String)]) -> CannedTransport {
    let index = Locked(0)
    return CannedTransport { request in
        let step = index.withLock { i -> (Int, String) in
            defer { i += 1 }
            return script[min(i, script.count - 1)]
        }
        return TransportResponse(status: step.0, headers: ["Content-Type": "application/json"], body: Array(step.1.utf8))
    }
}

@Suite("CIBA poll mode and the device grant: intervals, slow_down, typed outcomes")
struct DecoupledFlowTests {
    static let issuer = "https://as.example"
    static let token = URL(string: "https://as.example/token")!
    static let pending = (400, #"{"error":"authorization_pending"}"#)
    static let slowDown = (400, #"{"error":"slow_down"}"#)
    static let granted = (200, #"{"access_token":"AT","token_type":"Bearer","id_token":"h.p.s","expires_in":60}"#)

    func client(_ transport: CannedTransport, _ time: FakeTime, dpop: DPoPBinding? = nil) throws -> TokenClient {
        try TokenClient(
            tokenEndpoint: Self.token, issuer: Self.issuer, authentication: .clientSecretBasic(clientID: "app", secret: "s"),
            transport: transport, dpop: dpop, clock: time.clock)
    }

    @Test("CIBA request: scope, one hint, binding_message, user_code, requested_expiry, acr_values; auth_req_id, expires_in and interval read")
    func cibaRequest() async throws {
        let transport = CannedTransport(status: 200, body: #"{"auth_req_id":"1c266114-a1be-4252-8ad1-04986c5b9ac1","expires_in":120,"interval":2}"#)
        let time = FakeTime()
        let request = DecoupledAuthenticationRequest(
            scope: "openid email", hint: .loginHint(#"{"username":"alice"}"#), bindingMessage: "W4SCT",
            userCode: "1234", requestedExpiry: 300, acrValues: ["urn:a", "urn:b"])
        let started = try await client(transport, time).startBackchannelAuthentication(request, endpoint: URL(string: "https://as.example/bc")!)
        #expect(
            started
                == DecoupledAuthenticationResponse(
                    authReqID: "1c266114-a1be-4252-8ad1-04986c5b9ac1", expiresIn: 120, interval: 2,
                    expiresAt: time.now.addingTimeInterval(120)))
        #expect(!started.description.contains("1c266114"))
        let form = formFields(try #require(transport.requests.first))
        #expect(form["scope"] == "openid email" && form["login_hint"] == #"{"username":"alice"}"# && form["binding_message"] == "W4SCT")
        #expect(form["user_code"] == "1234" && form["requested_expiry"] == "300" && form["acr_values"] == "urn:a urn:b")
        #expect(form["id_token_hint"] == nil && form["login_hint_token"] == nil)
        #expect(transport.requests.first?.headers["Authorization"]?.hasPrefix("Basic ") == true)
    }

    @Test("CIBA request refusals: no openid scope, an override, a bad answer")
    func cibaRequestErrors() async throws {
        let time = FakeTime()
        let ok = CannedTransport(status: 200, body: #"{"auth_req_id":"x","expires_in":60}"#)
        let endpoint = URL(string: "https://as.example/bc")!
        await #expect(throws: OIDCError.self) {
            _ = try await client(ok, time).startBackchannelAuthentication(.init(scope: "email", hint: .loginHint("a")), endpoint: endpoint)
        }
        await #expect(throws: OIDCError.self) {
            _ = try await client(ok, time).startBackchannelAuthentication(
                .init(hint: .idTokenHint("a"), additionalParameters: [("auth_req_id", "y")]), endpoint: endpoint)
        }
        #expect(ok.requests.isEmpty)
        for body in [#"{"expires_in":60}"#, #"{"auth_req_id":"x"}"#, #"{"auth_req_id":"x","expires_in":60,"interval":-1}"#] {
            await #expect(throws: OIDCError.self) {
                _ = try await client(CannedTransport(status: 200, body: body), time).startBackchannelAuthentication(
                    .init(hint: .loginHintToken("t")), endpoint: endpoint)
            }
        }
        let refused = CannedTransport(status: 400, body: #"{"error":"unknown_user_id"}"#)
        do {
            _ = try await client(refused, time).startBackchannelAuthentication(.init(hint: .loginHint("nobody")), endpoint: endpoint)
            Issue.record("expected an OAuth error")
        } catch let error as OIDCError {
            #expect(error.oauthError?.error == "unknown_user_id")
        }
    }

    @Test("poll: pending waits the interval, slow_down adds 5 s for every later poll, then the tokens; grant type and auth_req_id sent")
    func cibaPollToSuccess() async throws {
        let transport = scriptedTokenEndpoint([Self.pending, Self.slowDown, Self.pending, Self.granted])
        let time = FakeTime()
        let outcome = try await client(transport, time).pollBackchannelAuthentication(
            DecoupledAuthenticationResponse(authReqID: "req-1", expiresIn: 120, interval: 2), sleeper: time.sleeper)
        guard case .granted(let tokens) = outcome else { Issue.record("expected granted, got \(outcome)"); return }
        #expect(tokens.accessToken == "AT" && tokens.idToken == "h.p.s")
        #expect(time.waits == [2, 2, 7, 7])
        #expect(transport.requests.count == 4)
        for request in transport.requests {
            let form = formFields(request)
            #expect(form["grant_type"] == "urn:openid:params:grant-type:ciba" && form["auth_req_id"] == "req-1")
        }
    }

    @Test("poll outcomes: access_denied → denied, expired_token → expired, the local deadline → expired, another error is thrown")
    func outcomes() async throws {
        let started = DecoupledAuthenticationResponse(authReqID: "r", expiresIn: 30, interval: nil)
        let denied = try await client(scriptedTokenEndpoint([Self.pending, (400, #"{"error":"access_denied","error_description":"no"}"#)]), FakeTime())
            .pollBackchannelAuthentication(started, sleeper: FakeTime().sleeper)
        guard case .denied(let error) = denied else { Issue.record("expected denied, got \(denied)"); return }
        #expect(error.error == "access_denied")

        let expired = try await client(scriptedTokenEndpoint([(400, #"{"error":"expired_token"}"#)]), FakeTime())
            .pollBackchannelAuthentication(started, sleeper: FakeTime().sleeper)
        guard case .expired = expired else { Issue.record("expected expired, got \(expired)"); return }

        // Always pending: the 30 s deadline with the default 5 s interval ends it locally after 5 polls.
        let time = FakeTime()
        let transport = scriptedTokenEndpoint([Self.pending])
        let local = try await client(transport, time).pollBackchannelAuthentication(started, sleeper: time.sleeper)
        guard case .expired(let localError) = local else { Issue.record("expected expired, got \(local)"); return }
        #expect(localError.error == "expired_token")
        #expect(transport.requests.count == 5)
        #expect(time.waits.allSatisfy { $0 == 5 })

        await #expect(throws: OIDCError.self) {
            _ = try await client(scriptedTokenEndpoint([(400, #"{"error":"invalid_grant"}"#)]), FakeTime())
                .pollBackchannelAuthentication(started, sleeper: FakeTime().sleeper)
        }
    }

    @Test("cancelling the polling task ends it with CancellationError and no further poll")
    func cancellation() async throws {
        let transport = scriptedTokenEndpoint([Self.pending])
        let client = try client(transport, FakeTime())
        let task = Task {
            try await client.pollBackchannelAuthentication(
                DecoupledAuthenticationResponse(authReqID: "r", expiresIn: 600, interval: 1),
                sleeper: .task)
        }
        try await Task.sleep(nanoseconds: 100_000_000)
        task.cancel()
        do {
            _ = try await task.value
            Issue.record("expected CancellationError")
        } catch is CancellationError {}
        #expect(transport.requests.count <= 1)
    }

    @Test("device grant: request (client_id for a public client, scope), user-facing members read, polled with the device_code grant")
    func deviceFlow() async throws {
        let time = FakeTime()
        let authorization = CannedTransport(
            status: 200,
            body: """
                {"device_code":"GmRhmhcxhwAzkoEqiMEg_DnyEysNkuNhszIySk9eS","user_code":"WDJB-MJHT","verification_uri":"https://as.example/device",
                 "verification_uri_complete":"https://as.example/device?user_code=WDJB-MJHT","expires_in":1800,"interval":5}
                """)
        let public_ = try TokenClient(
            tokenEndpoint: Self.token, issuer: Self.issuer, authentication: .none(clientID: "tv"),
            transport: authorization, clock: time.clock)
        let started = try await public_.requestDeviceAuthorization(scope: "openid profile", endpoint: URL(string: "https://as.example/device_authorization")!)
        #expect(started.userCode == "WDJB-MJHT" && started.verificationURI == "https://as.example/device")
        #expect(started.verificationURIComplete == "https://as.example/device?user_code=WDJB-MJHT" && started.expiresIn == 1800 && started.interval == 5)
        var dumped = ""
        dump(started, to: &dumped)
        #expect(!started.description.contains("GmRhmhcx") && !dumped.contains("GmRhmhcx"))
        #expect(formFields(try #require(authorization.requests.first)) == ["client_id": "tv", "scope": "openid profile"])

        let tokenTransport = scriptedTokenEndpoint([Self.pending, Self.slowDown, Self.granted])
        let poller = try TokenClient(
            tokenEndpoint: Self.token, issuer: Self.issuer, authentication: .none(clientID: "tv"),
            transport: tokenTransport, clock: time.clock)
        let outcome = try await poller.pollDeviceAuthorization(started, sleeper: time.sleeper)
        guard case .granted = outcome else { Issue.record("expected granted, got \(outcome)"); return }
        #expect(time.waits == [5, 5, 10])
        let form = formFields(try #require(tokenTransport.requests.last))
        #expect(form["grant_type"] == "urn:ietf:params:oauth:grant-type:device_code" && form["device_code"] == started.deviceCode && form["client_id"] == "tv")
    }

    @Test("device authorization answers missing a member are typed errors")
    func deviceErrors() async throws {
        let bodies = [
            #"{"user_code":"u","verification_uri":"https://x","expires_in":5}"#, #"{"device_code":"d","verification_uri":"https://x","expires_in":5}"#,
            #"{"device_code":"d","user_code":"u","expires_in":5}"#, #"{"device_code":"d","user_code":"u","verification_uri":"https://x"}"#,
        ]
        for body in bodies {
            let client = try TokenClient(
                tokenEndpoint: Self.token, issuer: Self.issuer, authentication: .none(clientID: "tv"),
                transport: CannedTransport(status: 200, body: body))
            do {
                _ = try await client.requestDeviceAuthorization(scope: nil, endpoint: URL(string: "https://as.example/da")!)
                Issue.record("expected an error for \(body)")
            } catch let error as OIDCError {
                #expect(error.code == .invalidDecoupledResponse)
            }
        }
    }

    @Test("with DPoP, polls carry proofs and the granted token must be DPoP")
    func dpopPolling() async throws {
        let time = FakeTime()
        let transport = scriptedTokenEndpoint([Self.pending, (200, #"{"access_token":"AT","token_type":"DPoP"}"#)])
        let outcome = try await client(transport, time, dpop: DPoPBinding(key: try DPoPKey.generate()))
            .pollBackchannelAuthentication(DecoupledAuthenticationResponse(authReqID: "r", expiresIn: 60), sleeper: time.sleeper)
        guard case .granted(let tokens) = outcome else { Issue.record("expected granted"); return }
        #expect(tokens.tokenType == "DPoP")
        #expect(transport.requests.allSatisfy { $0.headers["DPoP"] != nil })
        await #expect(throws: OIDCError.self) {
            _ = try await client(scriptedTokenEndpoint([Self.granted]), time, dpop: DPoPBinding(key: try DPoPKey.generate()))
                .pollBackchannelAuthentication(DecoupledAuthenticationResponse(authReqID: "r", expiresIn: 60), sleeper: time.sleeper)
        }
    }
}
