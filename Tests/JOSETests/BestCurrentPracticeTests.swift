import Foundation
import Testing

@testable import JOSE

/// The JWS/JWT-level rules of the JWT Best Current Practices update (RFC 8725bis), each checked on a token
/// built to break it alone. The audit table in JOSE.docc/BestCurrentPractice.md names these tests.
@Suite("RFC 8725bis: token-level rules")
struct BestCurrentPracticeTests {
    static let key: JWK? = try? TestKeys.jwk("p256.jwk")

    /// A compact JWS over `header` and `payload` given as raw bytes, signed with Keys/p256.
    static func token(header: [UInt8], payload: [UInt8]) throws -> String {
        let key = try #require(key)
        let input = Base64URL.encode(header) + "." + Base64URL.encode(payload)
        let signature = try Signer.sign(input: Array(input.utf8), key: key, algorithm: .es256)
        return input + "." + Base64URL.encode(signature)
    }

    static func token(header: String, payload: String = #"{"sub":"alice"}"#) throws -> String {
        try token(header: Array(header.utf8), payload: Array(payload.utf8))
    }

    @Test("typ: RFC 7515 §4.1.9 — ASCII case-insensitive, application/ implied without a slash, nothing else folded")
    func typComparison() {
        let yes: [(String, String)] = [
            ("at+jwt", "at+jwt"), ("AT+JWT", "at+jwt"), ("application/at+jwt", "at+jwt"), ("Application/AT+jwt", "at+jwt"),
            ("at+jwt", "application/at+jwt"), ("JWT", "jwt"), ("token-introspection+jwt", "TOKEN-INTROSPECTION+JWT"),
        ]
        for (value, expected) in yes { #expect(JOSEHeader.mediaType(value, is: expected), "\(value) is \(expected)") }
        let no: [(String?, String)] = [
            (nil, "at+jwt"), ("", "at+jwt"), ("at+jwt ", "at+jwt"), (" at+jwt", "at+jwt"), ("text/at+jwt", "at+jwt"),
            ("application/application/at+jwt", "at+jwt"), ("at+jwt;v=1", "at+jwt"), ("applicationat+jwt", "at+jwt"),
            ("logout+jwt", "at+jwt"), ("jwt", "at+jwt"), ("at+jwt\u{0}", "at+jwt"),
            // Unicode case folding would map these onto ASCII names; RFC 7515 compares ASCII only.
            ("to\u{212A}en-introspection+jwt", "token-introspection+jwt"), ("\u{0130}d+jwt", "id+jwt"), ("ＡT+JWT", "at+jwt"),
        ]
        for (value, expected) in no { #expect(!JOSEHeader.mediaType(value, is: expected), "\(value.debugDescription) is not \(expected)") }
    }

    @Test("alg is compared exactly: case, whitespace and look-alikes are unsupported_algorithm, never another algorithm")
    func algExact() throws {
        for name in ["es256", "Es256", "ES256 ", "\u{FF25}S256", "ES256\u{0}", "HS256\u{200B}", "rs256", "ps256", "eddsa", "ml-dsa-44", "ML-DSA-44\n"] {
            let token = try Self.token(
                header: #"{"alg":"\#(name.replacingOccurrences(of: "\n", with: "\\n").replacingOccurrences(of: "\u{0}", with: "\\u0000"))"}"#)
            expectCode(.unsupportedAlgorithm, "\(name.debugDescription)") { try CompactJWS(token).verify(with: #require(Self.key).publicKey) }
        }
    }

    @Test("duplicate members are refused in the protected header and in the claims, even when the values agree")
    func duplicateMembers() throws {
        let key = try #require(Self.key).publicKey
        expectCode(.duplicateJSONMember) { try CompactJWS(Self.token(header: #"{"alg":"ES256","alg":"ES256"}"#)).verify(with: key) }
        expectCode(.duplicateJSONMember) { try CompactJWS(Self.token(header: #"{"alg":"ES256","typ":"JWT","typ":"at+jwt"}"#)).verify(with: key) }
        expectCode(.duplicateJSONMember) { try CompactJWS(Self.token(header: #"{"alg":"ES256","a\u0062c":1,"abc":1}"#)).verify(with: key) }
        let claims = try Self.token(header: #"{"alg":"ES256"}"#, payload: #"{"sub":"alice","sub":"mallory"}"#)
        expectCode(.duplicateJSONMember) { _ = try JWT.verifyIgnoringIssuerAndAudience(claims, key: key) }
    }

    @Test(
        "invalid UTF-8 in the header or the claims is invalid_json, before any signature check",
        arguments: [[0xC0, 0xAF], [0xED, 0xA0, 0x80], [0xFF], [0xE2, 0x82]])
    func invalidUTF8(_ bad: [UInt8]) throws {
        let key = try #require(Self.key).publicKey
        let header = Array(#"{"alg":"ES256","kid":""#.utf8) + bad + Array(#""}"#.utf8)
        expectCode(.invalidJSON) { try CompactJWS(Self.token(header: header, payload: Array(#"{"sub":"a"}"#.utf8))).verify(with: key) }
        let payload = Array(#"{"sub":""#.utf8) + bad + Array(#""}"#.utf8)
        let token = try Self.token(header: Array(#"{"alg":"ES256"}"#.utf8), payload: payload)
        expectCode(.invalidJSON) { _ = try JWT.verifyIgnoringIssuerAndAudience(token, key: key) }
    }

    @Test("a character outside base64url, or padding, in any of the three segments is invalid_base64url", arguments: ["+", "/", "=", " ", "%", "\n", "."])
    func nonBase64URL(_ character: String) throws {
        let token = try Self.token(header: #"{"alg":"ES256"}"#)
        let parts = token.split(separator: ".").map(String.init)
        for segment in 0..<3 {
            var changed = parts
            changed[segment] += character == "." ? "" : character
            if character == "." { continue }  // a fourth segment is a shape error, checked below
            #expect(
                joseCode { try CompactJWS(changed.joined(separator: ".")).verify(with: #require(Self.key).publicKey) } == .invalidBase64URL
                    || joseCode { _ = try CompactJWS(changed.joined(separator: ".")) } == .malformedToken,
                "segment \(segment) + \(character.debugDescription)")
        }
        expectCode(.malformedToken) { _ = try CompactJWS(token + ".") }
    }

    @Test("an empty protected header — {} or an empty segment — is refused, never read as alg none")
    func emptyHeader() throws {
        let key = try #require(Self.key).publicKey
        #expect(joseCode { try CompactJWS(Self.token(header: "{}")).verify(with: key) } == .invalidHeader)
        let empty = try Self.token(header: "")
        #expect([.invalidJSON, .invalidHeader, .malformedToken].contains(joseCode { try CompactJWS(empty).verify(with: key) }))
        #expect(joseCode { try CompactJWS(Self.token(header: "[]")).verify(with: key) } != nil)
        #expect(joseCode { try CompactJWS(Self.token(header: "null")).verify(with: key) } != nil)
    }

    @Test("crit: duplicate entries, an empty list, a registered name, a name the header lacks are invalid_header")
    func critical() throws {
        let key = try #require(Self.key).publicKey
        let policy = JWSVerificationPolicy(understoodCriticalHeaders: ["exp1"])
        for header in [
            #"{"alg":"ES256","crit":["exp1","exp1"],"exp1":1}"#, #"{"alg":"ES256","crit":[]}"#, #"{"alg":"ES256","crit":["alg"]}"#,
            #"{"alg":"ES256","crit":["exp1"]}"#, #"{"alg":"ES256","crit":"exp1","exp1":1}"#, #"{"alg":"ES256","crit":[1],"exp1":1}"#,
        ] {
            expectCode(.invalidHeader, "\(header)") { try CompactJWS(Self.token(header: header)).verify(with: key, policy: policy) }
        }
        try CompactJWS(Self.token(header: #"{"alg":"ES256","crit":["exp1"],"exp1":1}"#)).verify(with: key, policy: policy)
    }

    @Test("bounds: token size, JSON depth, signature lengths per algorithm are checked before the expensive work")
    func bounds() throws {
        let key = try #require(Self.key).publicKey
        let big = try Self.token(header: #"{"alg":"ES256"}"#, payload: #"{"sub":""# + String(repeating: "a", count: 70_000) + #""}"#)
        expectCode(.limitExceeded) { _ = try CompactJWS(big) }
        let nested = String(repeating: #"{"a":"#, count: 40) + "1" + String(repeating: "}", count: 40)
        let deep = try Self.token(header: #"{"alg":"ES256"}"#, payload: nested)
        expectCode(.limitExceeded) { _ = try JWT.verifyIgnoringIssuerAndAudience(deep, key: key) }
        // A signature of the wrong length for the algorithm is refused without calling libcrypto's verifier.
        let token = try Self.token(header: #"{"alg":"ES256"}"#)
        let parts = token.split(separator: ".").map(String.init)
        for length in [0, 63, 65, 4096] {
            let forged = parts[0] + "." + parts[1] + "." + Base64URL.encode([UInt8](repeating: 1, count: length))
            expectCode(.invalidSignature, "\(length)") { try CompactJWS(forged).verify(with: key) }
        }
        // The header's own length counts against the token limit: a tighter limit refuses the same token.
        expectCode(.limitExceeded) { _ = try CompactJWS(token, limits: JOSELimits(maxTokenBytes: 64)) }
    }
}
