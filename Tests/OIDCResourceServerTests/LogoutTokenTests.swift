import Foundation
import JOSE
import OIDC
import Testing

@testable import OIDCResourceServer

@Suite("Back-Channel Logout 1.0 §2.6 logout tokens")
struct LogoutTokenTests {
    static func claims(_ changes: [String: JSONValue?] = [:]) -> JSONObject {
        var claims: JSONObject = [
            "iss": .string(Fixtures.issuer), "aud": .string(Fixtures.clientID), "iat": .integer(1_800_000_000 - 5),
            "exp": .integer(1_800_000_000 + 120), "jti": "logout-1", "sub": "alice", "sid": "session-9",
            "events": .object([LogoutToken.backChannelLogoutEvent: .object([:])]),
        ]
        for (name, value) in changes { claims[name] = value }
        return claims
    }

    static func validator(replays: any ReplayCache = InMemoryReplayCache(), maximumAge: TimeInterval = 600) throws -> LogoutTokenValidator {
        LogoutTokenValidator(
            issuer: Fixtures.issuer, clientID: Fixtures.clientID, keys: .keySet(try Fixtures.publicKeys()), replays: replays,
            maximumAge: maximumAge, clock: Fixtures.clock)
    }

    @Test("a valid token (typ logout+jwt or none): sub, sid, jti")
    func valid() async throws {
        let token = try await Self.validator().validate(try Fixtures.sign(Self.claims(), typ: "logout+jwt"))
        #expect(token.subject == "alice" && token.sessionID == "session-9" && token.jwtID == "logout-1")
        _ = try await Self.validator().validate(try Fixtures.sign(Self.claims(["sub": nil]), typ: nil, key: "rsa2048", algorithm: .rs256))
        _ = try await Self.validator().validate(try Fixtures.sign(Self.claims(["sid": nil]), typ: nil, key: "ed25519", algorithm: .eddsa))
    }

    @Test("each §2.6 rule refuses its violation")
    func rules() async throws {
        let cases: [(OIDCError.Code, [String: JSONValue?], String?)] = [
            (.invalidLogoutToken, ["nonce": "n"], "logout+jwt"),
            (.invalidLogoutToken, ["sub": nil, "sid": nil], "logout+jwt"),
            (.missingLogoutTokenClaim, ["events": nil], "logout+jwt"),
            (.invalidLogoutToken, ["events": .object(["other": .object([:])])], "logout+jwt"),
            (.invalidLogoutToken, ["events": .object([LogoutToken.backChannelLogoutEvent: "yes"])], "logout+jwt"),
            (.missingLogoutTokenClaim, ["jti": nil], "logout+jwt"),
            (.missingLogoutTokenClaim, ["iat": nil], "logout+jwt"),
            (.invalidLogoutToken, ["iat": .integer(1_800_000_000 - 3600)], "logout+jwt"),
            (.issuedInFuture, ["iat": .integer(1_800_000_000 + 3600)], "logout+jwt"),
            (.expired, ["exp": .integer(1_800_000_000 - 120)], "logout+jwt"),
            (.issuerMismatch, ["iss": "https://evil.example"], "logout+jwt"),
            (.audienceMismatch, ["aud": "another-client"], "logout+jwt"),
            (.unexpectedTokenType, [:], "JWT"),
            (.unexpectedTokenType, [:], "at+jwt"),
        ]
        for (code, change, typ) in cases {
            await expectCode(code) { _ = try await Self.validator().validate(try Fixtures.sign(Self.claims(change), typ: typ)) }
        }
    }

    @Test("exp is required (Back-Channel Logout 1.0 §2.4, final with errata 1); a draft-era token without it only with the explicit opt-out")
    func expirationRequired() async throws {
        await expectCode(.invalidLogoutToken) {
            _ = try await Self.validator().validate(try Fixtures.sign(Self.claims(["exp": nil]), typ: "logout+jwt"))
        }
        let draft = LogoutTokenValidator(
            issuer: Fixtures.issuer, clientID: Fixtures.clientID, keys: .keySet(try Fixtures.publicKeys()),
            replays: InMemoryReplayCache(), expirationRule: .optionalForDraftProviders,
            clock: Fixtures.clock)
        let token = try await draft.validate(try Fixtures.sign(Self.claims(["exp": nil]), typ: "logout+jwt"))
        #expect(token.expiresAt == nil && token.jwtID == "logout-1")
        // exp, when present, is still checked under the opt-out.
        await expectCode(.expired) {
            _ = try await draft.validate(try Fixtures.sign(Self.claims(["exp": .integer(1_800_000_000 - 120), "jti": "z"]), typ: "logout+jwt"))
        }
    }

    @Test("typ JWT only with the explicit opt-in, and an ID Token still fails there")
    func plainJWTType() async throws {
        let lenient = LogoutTokenValidator(
            issuer: Fixtures.issuer, clientID: Fixtures.clientID, keys: .keySet(try Fixtures.publicKeys()),
            replays: InMemoryReplayCache(), typeRule: .alsoAcceptingPlainJWT, clock: Fixtures.clock)
        _ = try await lenient.validate(try Fixtures.sign(Self.claims(), typ: "JWT"))
        await expectCode(.unexpectedTokenType) { _ = try await Self.validator().validate(try Fixtures.sign(Self.claims(["jti": "x"]), typ: "JWT")) }
        let idToken = try Fixtures.sign(Self.claims(["events": nil, "nonce": "n", "jti": "y"]), typ: "JWT")
        do {
            _ = try await lenient.validate(idToken)
            Issue.record("an ID Token passed as a logout token")
        } catch is OIDCError {}
    }

    @Test("a replayed jti within the window is refused; a refused token does not consume its jti")
    func replay() async throws {
        let validator = try Self.validator(replays: InMemoryReplayCache())
        await expectCode(.invalidLogoutToken) { _ = try await validator.validate(try Fixtures.sign(Self.claims(["nonce": "n"]), typ: "logout+jwt")) }
        let token = try Fixtures.sign(Self.claims(), typ: "logout+jwt")
        _ = try await validator.validate(token)
        await expectCode(.replayedLogoutToken) { _ = try await validator.validate(token) }
        _ = try await validator.validate(try Fixtures.sign(Self.claims(["jti": "logout-2"]), typ: "logout+jwt"))
    }

    @Test("an unbounded maximum age (infinity) still reports a replay instead of trapping on Int(infinity)")
    func infiniteWindow() async throws {
        let validator = try Self.validator(maximumAge: .infinity)
        let token = try Fixtures.sign(Self.claims(["jti": "forever"]), typ: "logout+jwt")
        _ = try await validator.validate(token)
        await expectCode(.replayedLogoutToken) { _ = try await validator.validate(token) }
    }

    @Test("the form body: exactly one logout_token, form content type")
    func formBody() async throws {
        let form = "application/x-www-form-urlencoded"
        #expect(try BackChannelLogoutRequest.logoutToken(fromBody: Array("logout_token=a.b.c".utf8), contentType: form) == "a.b.c")
        #expect(
            try BackChannelLogoutRequest.logoutToken(fromBody: Array("logout_token=a.b.c".utf8), contentType: form.uppercased() + "; charset=UTF-8") == "a.b.c")
        for (body, type) in [
            ("logout_token=a&logout_token=b", form), ("x=1", form), ("logout_token=", form),
            ("logout_token=a.b.c", "application/json"), ("logout_token=%zz", form),
        ] as [(String, String?)] {
            await expectCode(.invalidLogoutRequest) { _ = try BackChannelLogoutRequest.logoutToken(fromBody: Array(body.utf8), contentType: type) }
        }
        await expectCode(.invalidLogoutRequest) { _ = try BackChannelLogoutRequest.logoutToken(fromBody: Array("logout_token=a".utf8), contentType: nil) }
    }
}
