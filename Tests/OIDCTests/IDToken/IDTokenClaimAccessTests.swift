import Foundation
import JOSE
import Testing

@testable import OIDC

@Suite("ID Token claims: typed standard claims and three ways to read any other")
struct IDTokenClaimAccessTests {
    struct Aka: Decodable, Equatable {
        let portToken: String
        let previousCarrier: String?
        enum CodingKeys: String, CodingKey {
            case portToken = "port_token"
            case previousCarrier = "previous_carrier"
        }
    }

    struct MyClaims: Decodable {
        let sub: String
        let cmiInstanceId: String
        let session_state: String?
        let aka: Aka
    }

    static func token(_ changes: [(String, JSONValue?)] = []) throws -> IDToken {
        let claims = F.claims(
            [
                ("cmiInstanceId", "cmi-42"), ("session_state", "ss-1"), ("tenant_count", 3),
                ("aka", ["port_token": "eyJ.fake.port", "previous_carrier": "https://old.example"]),
                ("name", "Alice Example"), ("given_name", "Alice"), ("family_name", "Example"),
                ("email", "alice@example.com"), ("email_verified", true),
                ("phone_number", "+1 555 0100"), ("phone_number_verified", false),
                ("address", ["street_address": "1 Main St", "locality": "Springfield", "postal_code": "12345", "country": "US"]),
                ("locale", "en-US"), ("picture", "https://example.com/a.png"), ("updated_at", 1_700_000_000),
                ("amr", ["pwd", "otp"]), ("acr", "silver"), ("azp", .string(F.clientID)), ("sid", "s-1"),
                ("auth_time", 1_799_999_000), ("nonce", "n1"), ("at_hash", "x"), ("c_hash", "y"),
            ] + changes)
        return try IDToken(F.sign(claims, key: F.privateKey("rsa2048", kid: "k1"), .rs256))
    }

    @Test("standard and profile claims are typed")
    func standard() throws {
        let t = try Self.token()
        #expect(t.issuer == F.issuer)
        #expect(t.subject == "alice")
        #expect(t.audience == [F.clientID])
        #expect(t.expiresAt == F.start.addingTimeInterval(600))
        #expect(t.authTime == Date(timeIntervalSince1970: 1_799_999_000))
        #expect(t.nonce == "n1")
        #expect(t.authenticationContextClass == "silver")
        #expect(t.authenticationMethods == ["pwd", "otp"])
        #expect(t.authorizedParty == F.clientID)
        #expect(t.accessTokenHash == "x")
        #expect(t.codeHash == "y")
        #expect(t.sessionID == "s-1")
        #expect(t.name == "Alice Example")
        #expect(t.givenName == "Alice")
        #expect(t.familyName == "Example")
        #expect(t.email == "alice@example.com")
        #expect(t.emailVerified == true)
        #expect(t.phoneNumber == "+1 555 0100")
        #expect(t.phoneNumberVerified == false)
        #expect(t.address == Address(streetAddress: "1 Main St", locality: "Springfield", postalCode: "12345", country: "US"))
        #expect(t.locale == "en-US")
        #expect(t.picture == "https://example.com/a.png")
        #expect(t.updatedAt == Date(timeIntervalSince1970: 1_700_000_000))
        #expect(t.middleName == nil)
        #expect(t.notBefore == nil)
        #expect(t.algorithm == .rs256)
    }

    @Test("aud as an array")
    func audienceArray() throws {
        let t = try Self.token([("aud", ["a", "b"])])
        #expect(t.audience == ["a", "b"])
    }

    @Test("by name")
    func byName() throws {
        let t = try Self.token()
        #expect(try t.claim("cmiInstanceId", as: String.self) == "cmi-42")
        #expect(try t.claim("tenant_count", as: Int.self) == 3)
        #expect(try t.claim("absent", as: String.self) == nil)
        #expect(try t.claim("aka", as: Aka.self) == Aka(portToken: "eyJ.fake.port", previousCarrier: "https://old.example"))
        #expect(try t.claim(path: ["aka", "port_token"], as: String.self) == "eyJ.fake.port")
        #expect(try t.claim(path: ["aka", "absent"], as: String.self) == nil)
        #expect(try t.claim(path: ["absent", "port_token"], as: String.self) == nil)
    }

    @Test("through the caller's CodingKey enum, with the exact documented spelling")
    func byCodingKey() throws {
        let idToken = try Self.token()
        enum Keys: String, CodingKey { case session_state, cmiInstanceId, aka, port_token, missing }
        let s: String? = try idToken.get(parameter: Keys.session_state)
        #expect(s == "ss-1")
        let cmi: String? = try idToken.get(parameter: Keys.cmiInstanceId)
        #expect(cmi == "cmi-42")
        let missing: String? = try idToken.get(parameter: Keys.missing)
        #expect(missing == nil)
        let port: String? = try idToken.get(path: [Keys.aka, Keys.port_token])
        #expect(port == "eyJ.fake.port")
        let aka: Aka? = try idToken.get(parameter: Keys.aka)
        #expect(aka?.portToken == "eyJ.fake.port")
    }

    @Test("by decoding the whole payload")
    func byDecoding() throws {
        let claims = try Self.token().decode(MyClaims.self)
        #expect(claims.sub == "alice")
        #expect(claims.cmiInstanceId == "cmi-42")
        #expect(claims.session_state == "ss-1")
        #expect(claims.aka.portToken == "eyJ.fake.port")
    }

    @Test("a claim of the wrong JSON type is a typed error naming the claim")
    func wrongType() async throws {
        let t = try Self.token()
        do {
            _ = try t.claim("cmiInstanceId", as: Int.self)
            Issue.record("expected an error")
        } catch let error as OIDCError {
            #expect(error.code == .claimTypeMismatch)
            #expect(error.reason.contains("cmiInstanceId"))
            #expect(error.joseError?.member == "cmiInstanceId")
            #expect(!error.reason.contains("cmi-42"))
        }
        enum Keys: String, CodingKey { case session_state }
        await expectOIDCError(.claimTypeMismatch) {
            let n: Int? = try t.get(parameter: Keys.session_state); return n
        }
        await expectOIDCError(.claimTypeMismatch) { try t.claim(path: ["aka", "port_token"], as: Bool.self) }
        await expectOIDCError(.claimTypeMismatch) { try t.claim(path: ["session_state", "x"], as: String.self) }
        struct Wrong: Decodable { let cmiInstanceId: Int }
        do {
            _ = try t.decode(Wrong.self)
            Issue.record("expected an error")
        } catch let error as OIDCError {
            #expect(error.code == .claimTypeMismatch)
            #expect(error.reason.contains("cmiInstanceId"))
        }
    }

    @Test(
        "a registered claim of the wrong type fails the parse, naming the claim",
        arguments: ["email_verified", "address", "amr", "auth_time", "sub", "updated_at"])
    func registeredWrongType(_ name: String) throws {
        do {
            _ = try Self.token([(name, name == "sub" ? 7 : "not-the-right-type")])
            Issue.record("expected an error")
        } catch let error as OIDCError {
            #expect(error.code == .claimTypeMismatch)
            #expect(error.reason.contains(name))
        }
    }

    @Test("description never shows claims or the token")
    func description() throws {
        let t = try Self.token()
        #expect("\(t)" == "IDToken(alg RS256)")
    }
}

@Suite("Refresh consistency (OIDC Core §12.2)")
struct RefreshConsistencyTests {
    static func token(_ changes: [(String, JSONValue?)]) throws -> IDToken {
        try IDToken(
            F.sign(
                F.claims([("azp", .string(F.clientID)), ("auth_time", 1_799_000_000)] + changes),
                key: F.privateKey("rsa2048", kid: "k1"), .rs256))
    }

    @Test("same iss, sub, aud, azp, auth_time: accepted (aud order and a later iat do not matter)")
    func same() throws {
        let old = try Self.token([("aud", [.string(F.clientID), "api"])])
        let new = try Self.token([("aud", ["api", .string(F.clientID)]), ("iat", 1_800_000_500)])
        try new.checkIsRefresh(of: old)
        // auth_time may be omitted in the refreshed token
        try Self.token([("aud", [.string(F.clientID), "api"]), ("auth_time", nil)]).checkIsRefresh(of: old)
    }

    static let changed: [(String, String, JSONValue?)] = [
        ("refresh_issuer_changed", "iss", "https://other.example"),
        ("refresh_subject_changed", "sub", "bob"),
        ("refresh_audience_changed", "aud", "another-client"),
        ("refresh_authorized_party_changed", "azp", "another-client"),
        ("refresh_authorized_party_changed", "azp", nil),
        ("refresh_auth_time_changed", "auth_time", 1_798_999_999),
        ("refresh_nonce_changed", "nonce", "another-nonce"),
    ]

    func expectRefused(_ code: String, sourceLocation: SourceLocation = #_sourceLocation, _ body: () throws -> Void) {
        do {
            try body()
            Issue.record("expected \(code)", sourceLocation: sourceLocation)
        } catch {
            #expect(F.code(of: error) == code, sourceLocation: sourceLocation)
        }
    }

    @Test("auth_time moving forward (the user logged in again) is accepted by default, refused by the strict rule")
    func authTimeLater() throws {
        let old = try Self.token([])
        let later = try Self.token([("auth_time", 1_799_000_100)])
        try later.checkIsRefresh(of: old)
        try later.checkIsRefresh(of: old, authTime: .sameOrLater)
        expectRefused("refresh_auth_time_changed") { try later.checkIsRefresh(of: old, authTime: .unchanged) }
        // Earlier is refused by both rules; a new auth_time where the original had none too.
        let earlier = try Self.token([("auth_time", 1_798_999_000)])
        expectRefused("refresh_auth_time_changed") { try earlier.checkIsRefresh(of: old) }
        expectRefused("refresh_auth_time_changed") { try earlier.checkIsRefresh(of: old, authTime: .unchanged) }
        expectRefused("refresh_auth_time_changed") { try old.checkIsRefresh(of: try Self.token([("auth_time", nil)])) }
    }

    @Test("nonce (OIDC Core §12.2): the original's is accepted, absent is accepted, another or a new one is refused")
    func nonce() throws {
        let old = try Self.token([("nonce", "the-login-nonce")])
        try Self.token([("nonce", "the-login-nonce")]).checkIsRefresh(of: old)
        try Self.token([("nonce", nil)]).checkIsRefresh(of: old)
        expectRefused("refresh_nonce_changed") { try Self.token([("nonce", "another-nonce")]).checkIsRefresh(of: old) }
        expectRefused("refresh_nonce_changed") { try Self.token([("nonce", "a-nonce")]).checkIsRefresh(of: Self.token([])) }
    }

    @Test("each changed claim has its own code", arguments: 0..<changed.count)
    func changedClaim(_ index: Int) throws {
        let (code, name, value) = Self.changed[index]
        let old = try Self.token([])
        let new = try Self.token([(name, value)])
        do {
            try new.checkIsRefresh(of: old)
            Issue.record("expected \(code)")
        } catch {
            #expect(F.code(of: error) == code)
        }
    }
}
