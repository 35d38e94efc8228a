import Foundation
import JOSE
import Testing

@testable import OIDC

/// HTTP 503 / 429 with `Retry-After` while a decoupled grant polls: the next poll waits that long (seconds
/// or an HTTP date), within the grant's deadline; an unreadable value is a typed error; `slow_down` still adds 5 s.
@Suite("Retry-After on the polling grants (CIBA, device)")
struct RetryAfterPollingTests {
    static let denied = TransportResponse(status: 400, headers: ["Content-Type": "application/json"], body: Array(#"{"error":"access_denied"}"#.utf8))

    /// Answers the polls from `script` (status, Retry-After, OAuth error), then `access_denied`.
    func transport(_ script: [(status: Int, retryAfter: String?, error: String?)]) -> CannedTransport {
        let index = Locked(0)
        return CannedTransport { _ in
            let i = index.withLock { i -> Int in
                defer { i += 1 }
                return i
            }
            guard i < script.count else { return Self.denied }
            let step = script[i]
            var headers: HeaderFields = ["Content-Type": "application/json"]
            if let value = step.retryAfter { headers["Retry-After"] = value }
            let body = step.error.map { #"{"error":"\#($0)"}"# } ?? ""
            return TransportResponse(status: step.status, headers: headers, body: Array(body.utf8))
        }
    }

    func client(_ transport: CannedTransport, _ time: FakeTime) throws -> TokenClient {
        try TokenClient(
            tokenEndpoint: DecoupledFlowTests.token, issuer: DecoupledFlowTests.issuer,
            authentication: .clientSecretBasic(clientID: "app", secret: "s"), transport: transport, clock: time.clock)
    }

    func ciba(_ time: FakeTime, expiresIn: Int = 120) -> DecoupledAuthenticationResponse {
        DecoupledAuthenticationResponse(authReqID: "r1", expiresIn: expiresIn, interval: 1, expiresAt: time.now.addingTimeInterval(TimeInterval(expiresIn)))
    }

    @Test("503 + Retry-After: 7 (seconds), then slow_down (+5 s on the interval) and pending: waits 1, 7, 6, 6")
    func secondsThenSlowDown() async throws {
        let time = FakeTime()
        let transport = transport([(503, "7", nil), (400, nil, "slow_down"), (400, nil, "authorization_pending")])
        let outcome = try await client(transport, time).pollBackchannelAuthentication(ciba(time), sleeper: time.sleeper)
        guard case .denied = outcome else { Issue.record("expected denied, got \(outcome)"); return }
        #expect(time.waits == [1, 7, 6, 6])
    }

    @Test("429 + Retry-After as an HTTP date 90 s ahead: the next device poll waits 90 s")
    func httpDate() async throws {
        let time = FakeTime()  // 1_800_000_000 = Fri, 15 Jan 2027 08:00:00 GMT
        let transport = transport([(429, "Fri, 15 Jan 2027 08:01:31 GMT", "slow_down_please")])
        let started = DeviceAuthorizationResponse(
            deviceCode: "d1", userCode: "U", verificationURI: "https://as.example/device",
            expiresIn: 600, interval: 5, expiresAt: time.now.addingTimeInterval(600))
        let outcome = try await client(transport, time).pollDeviceAuthorization(started, sleeper: time.sleeper)
        guard case .denied = outcome else { Issue.record("expected denied, got \(outcome)"); return }
        #expect(time.waits == [5, 86])  // the date is 91 s after the clock, read after the first 5 s wait
    }

    @Test("a Retry-After that would end past the grant's expiry ends it as expired, without waiting")
    func pastDeadline() async throws {
        let time = FakeTime()
        let transport = transport([(503, "3600", nil)])
        let outcome = try await client(transport, time).pollBackchannelAuthentication(ciba(time, expiresIn: 60), sleeper: time.sleeper)
        guard case .expired(let error) = outcome else { Issue.record("expected expired, got \(outcome)"); return }
        #expect(error.error == "expired_token")
        #expect(time.waits == [1])
    }

    @Test("an unreadable Retry-After is invalid_decoupled_response naming the header", arguments: ["soon", "-1", "1.5", "Friday, 15-Jan-27 08:01:31 GMT"])
    func unreadable(_ value: String) async throws {
        let time = FakeTime()
        let error = await #expect(throws: OIDCError.self) {
            _ = try await client(transport([(503, value, nil)]), time).pollBackchannelAuthentication(ciba(time), sleeper: time.sleeper)
        }
        #expect(error?.code == .invalidDecoupledResponse)
        #expect(error?.reason.contains("Retry-After") == true)
    }

    @Test("a 503 without Retry-After is still the endpoint's server error")
    func noHeader() async throws {
        let time = FakeTime()
        let error = await #expect(throws: OIDCError.self) {
            _ = try await client(transport([(503, nil, nil)]), time).pollBackchannelAuthentication(ciba(time), sleeper: time.sleeper)
        }
        #expect(error?.code == .endpointServerError)
    }

    @Test("the HTTP-date reader: IMF-fixdate only, a past date is 0")
    func dateReader() throws {
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        #expect(try RetryAfter.seconds("Fri, 15 Jan 2027 08:00:02 GMT", now: now) == 2)
        #expect(try RetryAfter.seconds("Sun, 06 Nov 1994 08:49:37 GMT", now: now) == 0)
        #expect(RetryAfter.httpDate("Sun, 06 Nov 1994 08:49:37 GMT") == Date(timeIntervalSince1970: 784_111_777))
        #expect(RetryAfter.httpDate("Sun Nov  6 08:49:37 1994") == nil)
        #expect(RetryAfter.httpDate("Sun, 06 Nov 1994 08:49:37 UTC") == nil)
        #expect(try RetryAfter.seconds(" 120 ", now: now) == 120)
    }
}
