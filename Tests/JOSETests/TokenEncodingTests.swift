import Foundation
import Testing

@testable import JOSE

@Suite("Strict Base64URL and token shape")
struct TokenEncodingTests {
    static let malformed: [(String, String)] = [
        ("padding", "QUI="), ("double padding", "QQ=="), ("space", "QU JD"), ("newline", "QUJD\nRA"), ("tab", "\tQUJD"),
        ("plus", "+/8A"), ("slash", "ab/c"), ("non-zero trailing bits (2 chars)", "QR"), ("non-zero trailing bits (3 chars)", "QUJ"),
        ("length 1 mod 4", "QUJDR"), ("single char", "Q"), ("non-ASCII", "QUJé"),
    ]

    @Test("Base64URL.decode refuses non-canonical input", arguments: malformed.map(\.1))
    func decode(_ text: String) throws {
        expectCode(.invalidBase64URL) { _ = try Base64URL.decode(text) }
    }

    @Test("canonical forms round-trip")
    func canonical() throws {
        for length in 0..<20 {
            let bytes = (0..<length).map { UInt8(($0 * 37 + 11) & 0xFF) }
            let text = Base64URL.encode(bytes)
            #expect(!text.contains("=") && !text.contains("+") && !text.contains("/"))
            #expect(try Base64URL.decode(text) == bytes)
        }
        #expect(try Base64URL.decode("QUI") == Array("AB".utf8))
        #expect(try Base64URL.decode("-_8") == [0xFB, 0xFF])
    }

    @Test("every malformed encoding is refused in each token segment", arguments: ["header", "payload", "signature"])
    func inToken(_ segment: String) throws {
        let key = JWK(symmetricKey: Array(repeating: 1, count: 32))
        let token = try CompactJWS.sign(payload: "hello", key: key, algorithm: .hs256)
        var parts = token.split(separator: ".").map(String.init)
        let index = ["header", "payload", "signature"].firstIndex(of: segment)!
        for (name, bad) in [
            ("padding", parts[index] + "="), ("plus", "+" + parts[index].dropFirst()),
            ("space", " " + parts[index]),
            ("length 1 mod 4", parts[index] + String(repeating: "A", count: (5 - parts[index].utf8.count % 4) % 4)),
        ] {
            var changed = parts
            changed[index] = bad
            expectCode(.invalidBase64URL, "\(segment): \(name)") { try CompactJWS(changed.joined(separator: ".")).verify(with: key) }
        }
        // Flip trailing bits of the signature's last character (32 bytes → 43 chars, 2 spare bits).
        if segment == "signature" {
            let last = parts[2].last!
            let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")
            let value = alphabet.firstIndex(of: last)!
            parts[2] = String(parts[2].dropLast()) + String(alphabet[value | 1])
            if value | 1 != value {
                expectCode(.invalidBase64URL) { try CompactJWS(parts.joined(separator: ".")).verify(with: key) }
            }
        }
    }

    @Test(
        "wrong number of segments is a malformed token",
        arguments: [
            "", "abc", "eyJhbGciOiJIUzI1NiJ9.e30", "eyJhbGciOiJIUzI1NiJ9.e30.AAAA.AAAA", "eyJhbGciOiJIUzI1NiJ9.e30.AAAA.AAAA.AAAA", "..", ".e30.AAAA",
        ])
    func segments(_ token: String) throws {
        expectCode(.malformedToken) { _ = try CompactJWS(token) }
    }

    @Test("a header that is not an object, or lacks a string alg, is refused")
    func headerShape() throws {
        expectCode(.invalidJSON) { _ = try CompactJWS(Base64URL.encode("[1]") + ".e30.AAAA") }
        expectCode(.invalidJSON) { _ = try CompactJWS(Base64URL.encode("{\"alg\":\"HS256\"") + ".e30.AAAA") }
        expectCode(.invalidHeader) { _ = try CompactJWS(Base64URL.encode("{}") + ".e30.AAAA") }
        expectCode(.invalidHeader) { _ = try CompactJWS(Base64URL.encode(#"{"alg":256}"#) + ".e30.AAAA") }
        expectCode(.invalidHeader) { _ = try CompactJWS(Base64URL.encode(#"{"alg":"HS256","kid":7}"#) + ".e30.AAAA") }
    }
}
