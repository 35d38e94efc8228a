import Testing

@testable import OIDC

@Suite("Form URL encoding")
struct FormURLEncodingTests {
    struct Case: Sendable, CustomTestStringConvertible {
        let plain: String
        let encoded: String
        var testDescription: String { encoded }
    }

    static let cases: [Case] = [
        Case(plain: "abcXYZ019-._~", encoded: "abcXYZ019-._~"),
        Case(plain: "a b", encoded: "a%20b"),
        Case(plain: "a+b", encoded: "a%2Bb"),
        Case(plain: "a&b=c", encoded: "a%26b%3Dc"),
        Case(plain: "#?/:@!$'()*,;", encoded: "%23%3F%2F%3A%40%21%24%27%28%29%2A%2C%3B"),
        Case(plain: "{\"a\":[1]}", encoded: "%7B%22a%22%3A%5B1%5D%7D"),
        Case(plain: "é", encoded: "%C3%A9"),
        Case(plain: "日本", encoded: "%E6%97%A5%E6%9C%AC"),
        Case(plain: "😀", encoded: "%F0%9F%98%80"),
        Case(plain: "%", encoded: "%25"),
        Case(plain: "\n\t", encoded: "%0A%09"),
        Case(plain: "", encoded: ""),
    ]

    @Test("encodes only unreserved characters as they are", arguments: cases)
    func encode(_ c: Case) throws {
        #expect(FormURLEncoding.encode(c.plain) == c.encoded)
        #expect(try FormURLEncoding.decode(c.encoded) == c.plain)
    }

    @Test("plus is a space when decoding form data, and a plus otherwise")
    func plus() throws {
        #expect(try FormURLEncoding.decode("a+b%2Bc") == "a b+c")
        #expect(try FormURLEncoding.decode("a+b", plusAsSpace: false) == "a+b")
        #expect(try FormURLEncoding.decode("%c3%a9") == "é")
    }

    @Test("malformed escapes and invalid UTF-8 are typed errors", arguments: ["%", "%4", "%G0", "a%zz", "%FF", "%C3", "%ED%A0%80"])
    func malformed(_ text: String) {
        #expect(errorCode { _ = try FormURLEncoding.decode(text) } == .invalidPercentEncoding)
    }

    @Test("parse keeps order and duplicates, skips empty segments")
    func parse() throws {
        let pairs = try FormURLEncoding.parse("a=1&&b=x+y&a=2&flag&")
        #expect(pairs.map(\.name) == ["a", "b", "a", "flag"])
        #expect(pairs.map(\.value) == ["1", "x y", "2", ""])
        #expect(FormURLEncoding.encode([("k y", "v&w")]) == "k%20y=v%26w")
    }
}
