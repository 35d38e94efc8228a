import Foundation
import JOSE
import OIDC
import Testing

@testable import OIDCResourceServer

/// The validation's fast paths (claims read in place, a fresh key set read without the actor, b64token checked
/// sixteen bytes per step) answer exactly as the typed reads they stand in for.
@Suite("Access-token hot path: same answers as the typed reads")
struct AccessTokenHotPathTests {
    /// A token over a payload written by hand (escapes, odd types), signed with Keys/p256.
    static func sign(payload: String, typ: String = "at+jwt") throws -> String {
        try CompactJWS.sign(payload: Array(payload.utf8), header: ["typ": .string(typ)], key: try Fixtures.key("p256"), algorithm: .es256)
    }

    /// The claims of `Fixtures.accessTokenClaims()` as JSON text, with `members` replacing or adding raw members.
    static func payload(_ members: [String: String]) -> String {
        var fields: [(String, String)] = [
            ("iss", #""https://as.example""#), ("sub", #""alice""#), ("aud", #""https://api.example""#),
            ("client_id", #""app""#), ("iat", "1799999990"), ("exp", "1800000300"), ("jti", #""jti-1""#),
            ("scope", #""read write""#),
        ]
        for (name, value) in members {
            if let index = fields.firstIndex(where: { $0.0 == name }) { fields[index].1 = value } else { fields.append((name, value)) }
        }
        return "{" + fields.filter { $0.1 != "-" }.map { "\"\($0.0)\":\($0.1)" }.joined(separator: ",") + "}"
    }

    @Test("claims written with escapes are read as their decoded values (iss, aud, sub, client_id, jti, scope)")
    func escapedClaims() async throws {
        let token = try Self.sign(
            payload: Self.payload([
                "iss": #""https:\/\/as.example""#, "aud": #"["x",  "https:\/\/api.example" ]"#, "sub": #""al\u0069ce""#,
                "client_id": #""a\u0070p""#, "jti": #""jti\u002d1""#, "scope": #""read\u0020write admin""#,
            ]))
        let accepted = try await Fixtures.validator().validate(bearerToken: token, requiredScopes: ["write", "admin"])
        #expect(accepted.subject == "alice" && accepted.clientID == "app" && accepted.jwtID == "jti-1")
        #expect(accepted.scope == "read write admin" && accepted.hasScopes(["read"]) && !accepted.hasScopes(["rea"]))
    }

    @Test("aud holding this audience and a non-string is still a claim type error, not accepted")
    func audienceWithNonString() async throws {
        for aud in [#"["https://api.example", 7]"#, #"[null, "https://api.example"]"#, #"["https://api.example", ["x"]]"#] {
            let token = try Self.sign(payload: Self.payload(["aud": aud]))
            await #expect { _ = try await Fixtures.validator().validate(bearerToken: token) } throws: { error in
                (error as? OIDCError)?.code == .claimTypeMismatch
            }
        }
    }

    @Test("iss and aud that differ only in how they are written: byte-equal after decoding or canonically equal pass, others fail")
    func issuerAndAudienceSpellings() async throws {
        // U+212A KELVIN SIGN is canonically "K": Swift's String equality, the rule before and after the fast path.
        let kelvin = AccessTokenValidator(
            issuer: "https://K.example", audience: "https://api.example", keys: .keySet(try Fixtures.publicKeys()),
            clock: Fixtures.clock)
        _ = try await kelvin.validate(bearerToken: try Self.sign(payload: Self.payload(["iss": "\"https://\u{212A}.example\""])))
        for (name, value, code) in [
            ("iss", #""https://as.example/""#, OIDCError.Code.issuerMismatch), ("aud", #"["https://api.exampl"]"#, .audienceMismatch),
            ("aud", #""https://api.example ""#, .audienceMismatch), ("iss", "7", .claimTypeMismatch), ("aud", "{}", .claimTypeMismatch),
        ] {
            let token = try Self.sign(payload: Self.payload([name: value]))
            await #expect { _ = try await Fixtures.validator().validate(bearerToken: token) } throws: { error in
                (error as? OIDCError)?.code == code
            }
        }
    }

    @Test(
        "sub, client_id, jti and scope of the wrong type (null included) are claim type errors; absent ones are missing claims",
        arguments: ["sub", "client_id", "jti", "scope"])
    func requiredStringTypes(name: String) async throws {
        for value in ["7", "null", #"["x"]"#, "true"] {
            let token = try Self.sign(payload: Self.payload([name: value]))
            await #expect { _ = try await Fixtures.validator().validate(bearerToken: token) } throws: { error in
                (error as? OIDCError)?.code == .claimTypeMismatch
            }
        }
        let absent = {
            try await Fixtures.validator().validate(bearerToken: try Self.sign(payload: Self.payload([name: "-"])))
        }
        if name == "scope" {
            #expect(try await absent().scope == nil)
        } else {
            await #expect { _ = try await absent() } throws: { error in (error as? OIDCError)?.code == .missingAccessTokenClaim }
        }
    }

    @Test("hasScopes answers as the whole-value split always did, odd spacing and empty names included")
    func scopeEdgeCases() async throws {
        // The rule before the byte scan: split on single spaces, empty pieces kept except a trailing one.
        func reference(_ scope: String, _ required: Set<String>) -> Bool {
            var pieces = scope.split(separator: " ", omittingEmptySubsequences: false).map(String.init)
            if pieces.last == "" { pieces.removeLast() }
            return required.allSatisfy(pieces.contains)
        }
        let scopes = ["", " ", "a", "a ", " a", "a  b", "read write", "r\u{e9}ad write", "read  write ", "ab a"]
        let requirements: [Set<String>] = [[], [""], ["a"], ["b"], ["a", "b"], ["read"], ["r\u{e9}ad"], ["write"], ["ab"], ["a", ""]]
        for scope in scopes {
            let encoded = String(decoding: try JSONEncoder().encode(scope), as: UTF8.self)
            let token = try await Fixtures.validator().validate(bearerToken: try Self.sign(payload: Self.payload(["scope": encoded])))
            for required in requirements {
                #expect(token.hasScopes(required) == reference(scope, required), "\(scope.debugDescription) \(required)")
            }
        }
    }

    @Test("b64token over long values (the sixteen-byte steps): every byte, in every block position and the tail")
    func b64TokenLong() {
        let allowed = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~+/".utf8)
        func reference(_ bytes: [UInt8]) -> Bool {
            var end = bytes.count
            while end > 0, bytes[end - 1] == UInt8(ascii: "=") { end -= 1 }
            return end > 0 && bytes[..<end].allSatisfy(allowed.contains)
        }
        for length in [16, 17, 31, 32, 48, 53] {
            for position in [0, 1, 7, 8, 15, 16, 30, 31, 47, 52] where position < length {
                for byte in UInt8.min...UInt8.max {
                    var bytes = [UInt8](repeating: UInt8(ascii: "Q"), count: length)
                    bytes[position] = byte
                    #expect(BearerTokenExtractor.isB64Token(bytes) == reference(bytes), "length \(length) byte \(byte) at \(position)")
                }
            }
        }
        #expect(BearerTokenExtractor.isB64Token(Array(repeating: UInt8(ascii: "z"), count: 40) + [UInt8(ascii: "="), UInt8(ascii: "=")]))
    }

    @Test("a cached key set is read without the actor only while fresh; once stale the validation fetches it again")
    func freshKeySnapshot() async throws {
        let jwks = try String(contentsOf: Fixtures.keysDirectory.appendingPathComponent("jwks.json"), encoding: .utf8)
        let transport = ScriptedTransport { _ in
            TransportResponse(status: 200, headers: ["Content-Type": "application/json"], body: Array(jwks.utf8))
        }
        let now = Locked(Fixtures.now)
        let clock: @Sendable () -> Date = { now.withLock { $0 } }
        let cache = try JWKSetCache(
            jwksURI: URL(string: "https://as.example/jwks")!, transport: transport,
            configuration: .init(defaultTimeToLive: 300, honoursCacheControl: false, clock: clock))
        #expect(cache.freshKeys() == nil)  // nothing fetched yet
        // No verified-token cache: this is the key path (a cached token is served without the keys until its entry ends).
        let validator = AccessTokenValidator(
            issuer: Fixtures.issuer, audience: Fixtures.audience, keys: .cache(cache), clock: Fixtures.clock, tokenCache: nil)
        let token = try Fixtures.sign(Fixtures.accessTokenClaims())
        _ = try await validator.validate(bearerToken: token)
        #expect(cache.freshKeys()?.keys.count == (try await cache.keys()).keys.count)
        _ = try await validator.validate(bearerToken: token)
        #expect(transport.requests.count == 1)
        now.withLock { $0 = $0.addingTimeInterval(300) }  // expiry: no longer fresh
        #expect(cache.freshKeys() == nil)
        _ = try await validator.validate(bearerToken: token)
        #expect(transport.requests.count == 2 && cache.freshKeys() != nil)
    }

    @Test("the request call answers a Bearer token without suspending exactly as the observed path does, failures named alike")
    func synchronousBearerPathParity() async throws {
        let good = try Fixtures.sign(Fixtures.accessTokenClaims())
        let parts = good.split(separator: ".")
        // A header with a nonce (a Microsoft Graph token) over a signature that does not verify: only the naming step says why.
        let graphHeader = Base64URL.encode(#"{"alg":"ES256","typ":"at+jwt","nonce":"n"}"#)
        let graph = "\(graphHeader).\(parts[1]).\(parts[2])"
        let cases: [(String, String?)] = [
            (good, nil), (graph, "unverifiable_access_token"),
            (try Fixtures.sign(Fixtures.accessTokenClaims(["exp": .integer(1_800_000_000 - 3600)])), "expired"),
            (try Fixtures.sign(Fixtures.accessTokenClaims(["scope": "read"])), "insufficient_scope"),
            (
                try Fixtures.sign(Fixtures.accessTokenClaims(["cnf": .object(["jkt": "0ZcOCORZNYy-DWpqq30jZyJGHTN0d2HglBV3uiguA4I"])])),
                "dpop_bound_token_as_bearer"
            ),
            (try Fixtures.sign(Fixtures.accessTokenClaims(["aud": "https://other.example"])), "audience_mismatch"),
            // An ID Token for another audience: the typ decides first, on either path.
            (try Fixtures.sign(Fixtures.accessTokenClaims(["aud": "https://other.example"]), typ: "JWT"), "unexpected_token_type"),
        ]
        let observed = try Fixtures.validator(observer: ValidationRecorder())  // the observed path: the same path inside observe
        for (token, expected) in cases {
            var answers: [String?] = []
            for validator in [try Fixtures.validator(), observed] {
                do {
                    _ = try await validator.validate(
                        method: "GET", url: URL(string: "https://api.example/items")!,
                        headers: ["Authorization": "Bearer " + token], requiredScopes: ["write"])
                    answers.append(nil)
                } catch {
                    answers.append((error as? OIDCError)?.code.rawValue ?? "\(error)")
                }
                do {
                    _ = try await validator.validate(bearerToken: token, requiredScopes: ["write"])
                    answers.append(nil)
                } catch {
                    answers.append((error as? OIDCError)?.code.rawValue ?? "\(error)")
                }
            }
            #expect(answers == Array(repeating: expected, count: 4), "\(expected ?? "accepted")")
        }
    }
}
