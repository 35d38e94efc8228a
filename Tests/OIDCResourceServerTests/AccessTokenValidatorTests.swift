import Foundation
import JOSE
import OIDC
import Testing

@testable import OIDCResourceServer

@Suite("RFC 9068 access-token validation")
struct AccessTokenValidatorTests {
    @Test(
        "a valid token, signed ES256, RS256 or EdDSA: typed claims and scopes",
        arguments: [
            ("p256", JWSAlgorithm.es256), ("rsa2048", JWSAlgorithm.rs256), ("ed25519", JWSAlgorithm.eddsa),
        ])
    func valid(key: String, algorithm: JWSAlgorithm) async throws {
        let token = try Fixtures.sign(Fixtures.accessTokenClaims(), key: key, algorithm: algorithm)
        let accessToken = try await Fixtures.validator().validate(bearerToken: token, requiredScopes: ["read"])
        #expect(accessToken.subject == "alice" && accessToken.clientID == "app" && accessToken.jwtID == "jti-1")
        #expect(accessToken.scopes == ["read", "write"])
        #expect(try accessToken.authTime == Date(timeIntervalSince1970: 1_800_000_000 - 100))
        #expect(try accessToken.authenticationContextClass == "urn:acr:2fa")
        #expect(try accessToken.authenticationMethods == ["pwd", "otp"])
        #expect(accessToken.audience == [Fixtures.audience])
        #expect(!String(describing: accessToken).contains(token))
    }

    @Test("typ application/at+jwt (any case) is accepted; JWT, none and other types are refused")
    func type() async throws {
        for typ in ["application/at+jwt", "AT+JWT"] {
            _ = try await Fixtures.validator().validate(bearerToken: try Fixtures.sign(Fixtures.accessTokenClaims(), typ: typ))
        }
        for typ in ["JWT", "logout+jwt", nil] as [String?] {
            await expectCode(.unexpectedTokenType) {
                _ = try await Fixtures.validator().validate(bearerToken: try Fixtures.sign(Fixtures.accessTokenClaims(), typ: typ))
            }
        }
    }

    @Test("typ names: at+jwt with or without application/, any case; nothing else")
    func typeNames() {
        for yes in ["at+jwt", "AT+JWT", "application/at+jwt", "Application/At+Jwt"] { #expect(AccessTokenValidator.isAccessTokenType(yes), "\(yes)") }
        for no in [
            nil, "", "jwt", "at+jwtx", "xat+jwt", "application/", "application/jwt", "application/at+jwt ", "applicationat+jwt",
            "application/application/at+jwt",
        ] as [String?] {
            #expect(!AccessTokenValidator.isAccessTokenType(no), "\(no ?? "nil")")
        }
    }

    @Test(
        "scope matching is by whole space-separated values",
        arguments: [
            ("read write", ["read"], true), ("read write", ["write", "read"], true), ("read write", ["rea"], false),
            ("readwrite", ["read"], false), ("read  write", ["write"], true), ("", ["read"], false), ("read", [], true),
        ] as [(String, Set<String>, Bool)])
    func scopeMatching(scope: String, required: Set<String>, expected: Bool) async throws {
        let token = try await Fixtures.validator().validate(bearerToken: try Fixtures.sign(Fixtures.accessTokenClaims(["scope": .string(scope)])))
        #expect(token.hasScopes(required) == expected)
        #expect(token.hasScopes(required) == required.isSubset(of: token.scopes))
    }

    @Test("an ID Token is never an access token, even with this audience")
    func idTokenRefused() async throws {
        // Shaped like an ID Token (typ JWT, aud = client id, nonce): refused on typ.
        let idToken = try Fixtures.sign(Fixtures.accessTokenClaims(["aud": "app", "nonce": "n"]), typ: "JWT")
        await expectCode(.unexpectedTokenType) { _ = try await Fixtures.validator().validate(bearerToken: idToken) }
        // Even one whose aud happens to be the resource server's.
        let confusing = try Fixtures.sign(Fixtures.accessTokenClaims(["nonce": "n"]), typ: "JWT")
        await expectCode(.unexpectedTokenType) { _ = try await Fixtures.validator().validate(bearerToken: confusing) }
    }

    @Test("iss, aud, exp, nbf, iat are checked through JOSE's rules")
    func claims() async throws {
        let cases: [(OIDCError.Code, [String: JSONValue?])] = [
            (.issuerMismatch, ["iss": "https://evil.example"]),
            (.audienceMismatch, ["aud": "https://other.example"]),
            (.expired, ["exp": .integer(1_800_000_000 - 61)]),
            (.notYetValid, ["nbf": .integer(1_800_000_000 + 120)]),
            (.issuedInFuture, ["iat": .integer(1_800_000_000 + 120)]),
            (.claimTypeMismatch, ["scope": .array(["read"])]),
        ]
        for (code, change) in cases {
            await expectCode(code) {
                _ = try await Fixtures.validator().validate(bearerToken: try Fixtures.sign(Fixtures.accessTokenClaims(change)))
            }
        }
    }

    @Test("every RFC 9068 §2.2 claim is required", arguments: ["iss", "exp", "aud", "sub", "client_id", "iat", "jti"])
    func requiredClaim(name: String) async throws {
        let token = try Fixtures.sign(Fixtures.accessTokenClaims([name: nil]))
        do {
            _ = try await Fixtures.validator().validate(bearerToken: token)
            Issue.record("a token without \(name) passed")
        } catch let error as OIDCError {
            #expect([.missingAccessTokenClaim, .issuerMismatch, .audienceMismatch].contains(error.code), "\(error)")
        }
    }

    @Test("auth_time, acr and amr of the wrong type are typed errors when read")
    func optionalClaimTypes() async throws {
        let token = try Fixtures.sign(Fixtures.accessTokenClaims(["auth_time": "yesterday", "acr": .integer(2), "amr": "pwd"]))
        let accessToken = try await Fixtures.validator().validate(bearerToken: token)
        #expect(throws: OIDCError.self) { _ = try accessToken.authTime }
        #expect(throws: OIDCError.self) { _ = try accessToken.authenticationContextClass }
        #expect(throws: OIDCError.self) { _ = try accessToken.authenticationMethods }
    }

    @Test("a missing scope is insufficient_scope naming it")
    func scopes() async throws {
        let token = try Fixtures.sign(Fixtures.accessTokenClaims())
        do {
            _ = try await Fixtures.validator().validate(bearerToken: token, requiredScopes: ["read", "admin"])
            Issue.record("insufficient scope passed")
        } catch let error as OIDCError {
            #expect(error.code == .insufficientScope)
            #expect(error.reason.contains("admin") && !error.reason.contains("read "))
        }
    }

    @Test("garbage is malformed_jwt, not an ID Token error")
    func garbage() async throws {
        for text in ["garbage", "a.b.c", "e30.e30.AAAA"] {
            await expectCode(.malformedJWT) { _ = try await Fixtures.validator().validate(bearerToken: text) }
        }
    }

    @Test("HMAC and unknown keys are refused; a tampered signature fails")
    func signatures() async throws {
        let hmac = try JWT.sign(Fixtures.accessTokenClaims(), key: try Fixtures.key("hmac"), algorithm: .hs256, header: ["typ": "at+jwt"])
        do {
            _ = try await Fixtures.validator().validate(bearerToken: hmac)
            Issue.record("an HS256 token passed")
        } catch let error as OIDCError {
            #expect([.algorithmNotAllowed, .signingKeyNotFound].contains(error.code), "\(error)")
        }
        var parts = try Fixtures.sign(Fixtures.accessTokenClaims()).split(separator: ".").map(String.init)
        parts[1] = Base64URL.encode(Array(Fixtures.accessTokenClaims(["sub": "mallory"]).jsonString().utf8))
        await expectCode(.invalidSignature) { _ = try await Fixtures.validator().validate(bearerToken: parts.joined(separator: ".")) }
    }

    @Test("keys through a JWKSetCache: an unknown kid re-fetches once, then verifies")
    func cacheRotation() async throws {
        let jwks = try String(contentsOf: Fixtures.keysDirectory.appendingPathComponent("jwks.json"), encoding: .utf8)
        let rotated = Locked(false)
        let transport = ScriptedTransport { _ in
            // First answer: an empty set; afterwards the real keys (a rotation).
            let body = rotated.withLock { done -> String in
                defer { done = true }; return done ? jwks : #"{"keys":[]}"#
            }
            return TransportResponse(status: 200, headers: ["Content-Type": "application/json"], body: Array(body.utf8))
        }
        let cache = try JWKSetCache(
            jwksURI: URL(string: "https://as.example/jwks")!, transport: transport,
            configuration: .init(clock: Fixtures.clock))
        let validator = AccessTokenValidator(issuer: Fixtures.issuer, audience: Fixtures.audience, keys: .cache(cache), clock: Fixtures.clock)
        _ = try await validator.validate(bearerToken: try Fixtures.sign(Fixtures.accessTokenClaims()))
        _ = try await validator.validate(bearerToken: try Fixtures.sign(Fixtures.accessTokenClaims(), key: "rsa2048", algorithm: .rs256))
        #expect(transport.requests.count == 2)
    }
}
