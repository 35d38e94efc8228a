import Foundation
import JOSE
import OIDC
import OIDCSession
import Testing

/// A refreshed ID Token is validated and compared with the previous one before anything is stored.
@Suite("AuthenticatedSession: ID Tokens from refreshes")
struct RefreshedIDTokenTests {
    static let issuer = "https://op.example.com"
    static let clientID = "client-123"
    static let secret = "a-client-secret-of-at-least-32-bytes!!"
    static let now = Date(timeIntervalSince1970: 1_800_000_000)

    static func idToken(_ changes: [String: JSONValue?] = [:], secret: String = secret) throws -> String {
        var claims: JSONObject = [
            "iss": .string(issuer), "sub": "alice", "aud": .string(clientID), "auth_time": .integer(1_799_990_000),
            "exp": .integer(1_800_000_600), "iat": .integer(1_800_000_000),
        ]
        for (name, value) in changes { claims[name] = value }
        return try JWT.sign(claims, key: JWK(symmetricKey: Array(secret.utf8)), algorithm: .hs256)
    }

    static var validator: IDTokenValidator {
        IDTokenValidator(
            configuration: IDTokenValidator.Configuration(
                issuer: issuer, clientID: clientID, allowedAlgorithms: [.hs256],
                clientSecret: secret, clock: { now }))
    }

    /// A session holding tokens with the original ID Token, whose refresh returns `refreshedIDToken`.
    func run(_ refreshedIDToken: String?, policy: RefreshedIDTokenPolicy?) async throws
        -> (result: Result<Int, OIDCError>, kept: TokenResponse?, stored: TokenResponse?)
    {
        let original = TokenResponse(accessToken: "AT-1", refreshToken: "RT-1", idToken: try Self.idToken())
        let api = ScriptedAPI(validToken: "AT-2")
        let store = InMemoryTokenStore(original)
        // No rotated refresh token: a refused answer keeps the tokens. (With a rotated one the
        // session logs out instead: RotatedRefreshRefusedTests.)
        let refresher = ScriptedRefresher { .success(TokenResponse(accessToken: "AT-2", refreshToken: nil, idToken: refreshedIDToken)) }
        let session =
            try policy.map {
                try AuthenticatedSession(
                    tokens: original, refresher: refresher,
                    configuration: .init(
                        allowedOrigins: [Fixtures.api], transport: api, store: store,
                        refreshedIDTokens: $0, proactiveRefreshMargin: nil))
            }
            ?? AuthenticatedSession(
                tokens: original, refresher: refresher,
                configuration: .init(
                    allowedOrigins: [Fixtures.api], transport: api, store: store,
                    proactiveRefreshMargin: nil))
        let result: Result<Int, OIDCError>
        do { result = .success(try await session.send(TransportRequest(url: Fixtures.api)).status) } catch {
            result = .failure(try #require(error as? OIDCError))
        }
        return (result, await session.currentTokens, await store.load())
    }

    func expectRefused(
        _ outcome: (result: Result<Int, OIDCError>, kept: TokenResponse?, stored: TokenResponse?),
        _ code: OIDCError.Code, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        guard case .failure(let error) = outcome.result else {
            Issue.record("expected \(code), the request succeeded", sourceLocation: sourceLocation)
            return
        }
        #expect(error.code == code, sourceLocation: sourceLocation)
        #expect(outcome.kept?.accessToken == "AT-1", "the refresh result must not be kept", sourceLocation: sourceLocation)
        #expect(outcome.stored?.accessToken == "AT-1", "the refresh result must not be stored", sourceLocation: sourceLocation)
    }

    @Test("a valid refreshed ID Token of the same session is stored")
    func validIsStored() async throws {
        let refreshed = try Self.idToken(["iat": .integer(1_800_000_030)])
        let outcome = try await run(refreshed, policy: .validate(with: Self.validator))
        #expect(try outcome.result.get() == 200)
        #expect(outcome.kept?.idToken == refreshed && outcome.stored?.idToken == refreshed)
    }

    @Test("a later auth_time (the same user logged in again) is accepted; the new ID Token replaces the old one")
    func laterAuthTimeIsStored() async throws {
        let refreshed = try Self.idToken(["auth_time": .integer(1_799_999_000), "iat": .integer(1_800_000_030)])
        let outcome = try await run(refreshed, policy: .validate(with: Self.validator))
        #expect(try outcome.result.get() == 200)
        #expect(outcome.kept?.idToken == refreshed && outcome.stored?.idToken == refreshed)
    }

    @Test("the strict rule, by name, refuses a later auth_time")
    func strictAuthTime() async throws {
        let refreshed = try Self.idToken(["auth_time": .integer(1_799_999_000)])
        expectRefused(try await run(refreshed, policy: .validate(with: Self.validator, authTime: .unchanged)), .refreshAuthTimeChanged)
    }

    @Test("without an explicit policy, a refresh that returns an ID Token is refused")
    func defaultRefuses() async throws {
        expectRefused(try await run(try Self.idToken(), policy: nil), .refreshIDTokenNotExpected)
    }

    @Test("the named opt-out keeps the new access token and the previous ID Token")
    func discard() async throws {
        let outcome = try await run(try Self.idToken(["sub": "mallory"]), policy: .discardIDTokens)
        #expect(try outcome.result.get() == 200)
        #expect(outcome.kept?.accessToken == "AT-2")
        #expect(outcome.kept?.idToken == (try Self.idToken()))
    }

    @Test(
        "a refreshed ID Token failing validation or §12.2 is refused with its code; nothing is kept",
        arguments: [
            (["sub": "mallory"], "refresh_subject_changed"),
            (["auth_time": .integer(1_799_980_000)], "refresh_auth_time_changed"),
            (["nonce": "another-nonce"], "refresh_nonce_changed"),
            (["azp": .string(clientID)], "refresh_authorized_party_changed"),
            (["iss": .string("https://evil.example.com")], "issuer_mismatch"),
            (["exp": .integer(1_799_990_000)], "expired"),
            (["at_hash": "AAAAAAAAAAAAAAAAAAAAAA"], "at_hash_mismatch"),
        ] as [([String: JSONValue?], String)])
    func refused(_ changes: [String: JSONValue?], _ code: String) async throws {
        expectRefused(try await run(try Self.idToken(changes), policy: .validate(with: Self.validator)), OIDCError.Code(rawValue: code))
    }

    @Test("a refreshed ID Token with a bad signature is refused")
    func badSignature() async throws {
        let forged = try Self.idToken(secret: "another-secret-of-at-least-32-bytes!!!")
        let outcome = try await run(forged, policy: .validate(with: Self.validator))
        guard case .failure = outcome.result else { Issue.record("a forged ID Token was accepted"); return }
        #expect(outcome.kept?.accessToken == "AT-1" && outcome.stored?.accessToken == "AT-1")
    }
}
