import Foundation
import JOSE
import Testing

@testable import OIDC

@Suite("PKCE, state and nonce generation")
struct PKCETests {
    @Test("RFC 7636 Appendix B")
    func appendixB() throws {
        let pkce = PKCE(verifier: try CodeVerifier("dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"))
        #expect(pkce.method == .s256)
        #expect(pkce.challenge == "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM")
    }

    @Test("plain only when asked for by name")
    func plain() throws {
        #expect(try PKCE.random().method == .s256)
        let pkce = try PKCE.random(method: .plain)
        #expect(pkce.challenge == pkce.verifier.value)
        var request = Fixture.request()
        request.pkce = pkce
        let url = try request.authorizationURL(at: Fixture.endpoint)
        #expect(try Fixture.query(url, "code_challenge_method") == "plain")
    }

    @Test(
        "verifiers outside 43...128 characters or the alphabet are rejected",
        arguments: [
            String(repeating: "a", count: 42), String(repeating: "a", count: 129), String(repeating: "a", count: 42) + "+",
            String(repeating: "a", count: 42) + "é", String(repeating: "a", count: 42) + " ", "",
        ])
    func badVerifier(_ text: String) {
        #expect(errorCode { _ = try CodeVerifier(text) } == .invalidCodeVerifier)
    }

    @Test("verifier lengths 43 and 128 are accepted; others cannot be generated", arguments: [42, 43, 64, 128, 129])
    func lengths(_ length: Int) throws {
        if (43...128).contains(length) {
            #expect(try CodeVerifier.random(length: length).value.count == length)
        } else {
            #expect(errorCode { _ = try CodeVerifier.random(length: length) } == .invalidCodeVerifier)
        }
    }

    /// Chi-square statistic of character counts against a uniform distribution over `alphabet`.
    static func chiSquare(_ counts: [UInt8: Int], alphabet: [UInt8]) -> Double {
        let total = Double(counts.values.reduce(0, +))
        let expected = total / Double(alphabet.count)
        return alphabet.reduce(0) { sum, c in
            let d = Double(counts[c, default: 0]) - expected
            return sum + d * d / expected
        }
    }

    @Test("10,000 verifiers: length, alphabet, unique, uniform characters")
    func verifierStatistics() throws {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~".utf8)
        var seen = Set<String>()
        var counts: [UInt8: Int] = [:]
        for _ in 0..<10_000 {
            let value = try CodeVerifier.random().value
            #expect(value.utf8.count == 64)
            seen.insert(value)
            for byte in value.utf8 { counts[byte, default: 0] += 1 }
        }
        #expect(seen.count == 10_000)
        #expect(Set(counts.keys).isSubset(of: Set(alphabet)))
        // 640,000 draws over 66 characters: df = 65, mean 65, sd ≈ 11.4. 250 is > 16 sd away (never flakes);
        // a modulo-biased generator (bytes % 66) scores in the thousands, a missing character about 10,000.
        #expect(Self.chiSquare(counts, alphabet: alphabet) < 250)
        #expect(counts.count == 66)
    }

    @Test("10,000 states and nonces: 43 Base64URL characters, unique, uniform")
    func stateAndNonceStatistics() throws {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)
        var seen = Set<String>()
        var counts: [UInt8: Int] = [:]
        for i in 0..<10_000 {
            let value = i.isMultiple(of: 2) ? try OAuthState.random().value : try Nonce.random().value
            #expect(value.utf8.count == 43)  // 256 bits
            seen.insert(value)
            // The last character carries only 4 bits; count the 42 full ones.
            for byte in value.utf8.dropLast() { counts[byte, default: 0] += 1 }
        }
        #expect(seen.count == 10_000)
        #expect(Set(counts.keys) == Set(alphabet))
        // 420,000 draws over 64 characters: df = 63, mean 63, sd ≈ 11.2.
        #expect(Self.chiSquare(counts, alphabet: alphabet) < 250)
    }

    @Test("state and nonce values are validated", arguments: ["", "a\u{7F}", "tab\there", "é"])
    func badState(_ text: String) {
        #expect(errorCode { _ = try OAuthState(text) } == .invalidSecretValue)
    }

    @Test("nonce accepts unicode but not control characters")
    func nonceValues() throws {
        #expect(try Nonce("é-nonce").value == "é-nonce")
        #expect(errorCode { _ = try Nonce("") } == .invalidSecretValue)
        #expect(errorCode { _ = try Nonce("a\nb") } == .invalidSecretValue)
    }

    @Test("matching is exact")
    func matching() throws {
        let state = try OAuthState("abc")
        #expect(state.matches("abc"))
        #expect(!state.matches("abd"))
        #expect(!state.matches("abcd"))
        #expect(!state.matches(""))
    }
}
