import Foundation
import JOSE
import OIDC
import Testing

@testable import OIDCResourceServer

/// Issue 13's rule for configured intervals, applied to the resource-server validators:
/// a NaN, infinite or huge leeway or replay window never switches a time check off and
/// never traps (`Int(Double)`) when a token from outside reaches the message that names it.
@Suite("Configured leeway and replay window: no check switched off, no trap")
struct ConfiguredIntervalTests {
    static func logoutClaims(_ changes: [String: JSONValue] = [:]) -> JSONObject {
        var claims: JSONObject = [
            "iss": .string(Fixtures.issuer), "aud": .string(Fixtures.clientID), "iat": .integer(1_800_000_000 - 5),
            "exp": .integer(1_800_000_000 + 120), "jti": "logout-1", "sub": "alice",
            "events": .object([LogoutToken.backChannelLogoutEvent: .object([:])]),
        ]
        for (name, value) in changes { claims[name] = value }
        return claims
    }

    static func logoutValidator(window: TimeInterval = 600, leeway: TimeInterval = 60) throws -> LogoutTokenValidator {
        LogoutTokenValidator(
            issuer: Fixtures.issuer, clientID: Fixtures.clientID, keys: .keySet(try Fixtures.publicKeys()),
            maximumAge: window, leeway: leeway, clock: Fixtures.clock)
    }

    @Test(
        "a replayed logout token under a huge, infinite or NaN maximum age is replayed_logout_token (was a trap in the message)",
        arguments: [1e300, Double.infinity, Double.nan])
    func replayMessageWithHugeWindow(window: Double) async throws {
        let validator = try Self.logoutValidator(window: window)
        let token = try Fixtures.sign(Self.logoutClaims(), typ: "logout+jwt")
        _ = try await validator.validate(token)
        await expectCode(.replayedLogoutToken) { _ = try await validator.validate(token) }
    }

    @Test(
        "a logout token issued a year ago is refused whatever leeway is configured (NaN/inf switched the age bound off)",
        arguments: [Double.nan, Double.infinity, 1e300, -5])
    func oldLogoutTokenWithBadLeeway(leeway: Double) async throws {
        let validator = try Self.logoutValidator(window: 600, leeway: leeway)
        let token = try Fixtures.sign(Self.logoutClaims(["iat": .integer(1_800_000_000 - 365 * 86_400)]), typ: "logout+jwt")
        await expectCode(.invalidLogoutToken) { _ = try await validator.validate(token) }
    }

    @Test(
        "an introspected token expired two days ago is expired whatever leeway is configured",
        arguments: [Double.nan, Double.infinity, 1e300])
    func expiredIntrospectionWithBadLeeway(leeway: Double) async throws {
        let transport = ScriptedTransport { _ in
            TransportResponse(
                status: 200, headers: ["Content-Type": "application/json"],
                body: Array(#"{"active":true,"exp":1799827200}"#.utf8))
        }
        let introspector = try TokenIntrospector(
            endpoint: URL(string: "https://as.example/introspect")!,
            authentication: .clientSecretBasic(clientID: Fixtures.clientID, secret: "s"),
            transport: transport, audience: .anyAudience, leeway: leeway, clock: Fixtures.clock)
        await expectCode(.expired) { _ = try await introspector.validate("T") }
    }
}
