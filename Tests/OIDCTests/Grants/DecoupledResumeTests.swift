import Foundation
import JOSE
import Testing

@testable import OIDC

/// A decoupled login stored while waiting and resumed later keeps its original deadline and interval.
@Suite("CIBA and device logins resumed from storage keep their deadline")
struct DecoupledResumeTests {
    static let token = URL(string: "https://as.example/token")!

    func client(_ transport: CannedTransport, _ time: FakeTime) throws -> TokenClient {
        try TokenClient(
            tokenEndpoint: Self.token, issuer: "https://as.example", authentication: .clientSecretBasic(clientID: "app", secret: "s"),
            transport: transport, clock: time.clock)
    }

    /// Encodes and decodes `value` as a back end storing it between requests would.
    func roundTrip<T: Codable>(_ value: T) throws -> T {
        try JSONDecoder().decode(T.self, from: try JSONEncoder().encode(value))
    }

    @Test("CIBA: started at T with expires_in 120, resumed at T+100: polls until T+120 only")
    func ciba() async throws {
        let time = FakeTime()
        let start = CannedTransport(status: 200, body: #"{"auth_req_id":"req-1","expires_in":120,"interval":5}"#)
        let started = try await client(start, time).startBackchannelAuthentication(
            DecoupledAuthenticationRequest(hint: .loginHint("alice")), endpoint: URL(string: "https://as.example/bc")!)
        #expect(started.expiresAt == time.now.addingTimeInterval(120))
        let resumed = try roundTrip(started)
        #expect(resumed == started && resumed.interval == 5 && resumed.expiresAt == time.now.addingTimeInterval(120))

        try await time.sleeper.sleep(100)  // the process restarted; 100 s of the 120 are gone
        let polls = scriptedTokenEndpoint([DecoupledFlowTests.pending])
        let outcome = try await client(polls, time).pollBackchannelAuthentication(resumed, sleeper: time.sleeper)
        guard case .expired = outcome else { Issue.record("expected expired, got \(outcome)"); return }
        #expect(polls.requests.count == 3)  // at T+105, T+110, T+115; T+120 is the deadline
        #expect(time.now == Date(timeIntervalSince1970: 1_800_000_120))
    }

    @Test("device grant: resumed after its deadline, it expires at once without polling")
    func deviceAfterDeadline() async throws {
        let time = FakeTime()
        let start = CannedTransport(
            status: 200, body: #"{"device_code":"dc","user_code":"WDJB-MJHT","verification_uri":"https://as.example/device","expires_in":60,"interval":7}"#)
        let started = try await client(start, time).requestDeviceAuthorization(scope: "openid", endpoint: URL(string: "https://as.example/da")!)
        let resumed = try roundTrip(started)
        #expect(resumed.interval == 7 && resumed.expiresAt == time.now.addingTimeInterval(60))

        try await time.sleeper.sleep(30)
        let polls = scriptedTokenEndpoint([DecoupledFlowTests.pending])
        let outcome = try await client(polls, time).pollDeviceAuthorization(resumed, sleeper: time.sleeper)
        guard case .expired = outcome else { Issue.record("expected expired, got \(outcome)"); return }
        #expect(polls.requests.count == 4)  // T+37, T+44, T+51, T+58 with the stored 7 s interval; T+65 is past the deadline
        #expect(time.waits.dropFirst() == [7, 7, 7, 7, 7])

        try await time.sleeper.sleep(100)
        let late = scriptedTokenEndpoint([DecoupledFlowTests.pending])
        let lateOutcome = try await client(late, time).pollDeviceAuthorization(resumed, sleeper: time.sleeper)
        guard case .expired = lateOutcome else { Issue.record("expected expired, got \(lateOutcome)"); return }
        #expect(late.requests.isEmpty)
    }

    @Test("a response stored without expiresAt (made by hand) still polls until expires_in from the start of polling")
    func withoutAbsoluteDeadline() async throws {
        let time = FakeTime()
        let polls = scriptedTokenEndpoint([DecoupledFlowTests.pending])
        let legacy = try JSONDecoder().decode(
            DecoupledAuthenticationResponse.self,
            from: Data(#"{"authReqID":"r","expiresIn":20,"interval":5}"#.utf8))
        #expect(legacy.expiresAt == nil)
        let outcome = try await client(polls, time).pollBackchannelAuthentication(legacy, sleeper: time.sleeper)
        guard case .expired = outcome else { Issue.record("expected expired, got \(outcome)"); return }
        #expect(polls.requests.count == 3)
    }
}
