import Foundation
import Testing

@testable import JOSE

/// The per-thread cache of the last two protected headers (HeaderCache): a hit only on
/// identical segment bytes under identical limits, so every parse answers as a fresh one.
@Suite("Protected header cache")
struct HeaderCacheTests {
    func token(_ header: String) -> String {
        Base64URL.encode(header) + "." + Base64URL.encode(#"{"sub":"a"}"#) + "." + Base64URL.encode([UInt8](repeating: 1, count: 32))
    }

    @Test("two headers of the same length, alternated on one thread, are never confused")
    func differentHeadersNotConfused() throws {
        let first = token(#"{"alg":"HS256","kid":"aaaa"}"#)
        let second = token(#"{"alg":"HS256","kid":"aaab"}"#)
        for _ in 0..<3 {
            #expect(try CompactJWS(first).header.keyID == "aaaa")
            #expect(try CompactJWS(first).header.keyID == "aaaa")
            #expect(try CompactJWS(second).header.keyID == "aaab")
            #expect(try CompactJWS(first).header.algorithmName == "HS256")
        }
    }

    @Test("three headers of the same length in turn (more than the cache holds) each read as their own")
    func evictionKeepsAnswers() throws {
        let tokens = ["aaaa", "aaab", "aaac"].map { (kid: $0, token: token(#"{"alg":"HS256","kid":"\#($0)"}"#)) }
        for round in 0..<4 {
            for (kid, token) in tokens + tokens.reversed() + [tokens[round % 3], tokens[(round + 1) % 3], tokens[round % 3]] {
                #expect(try CompactJWS(token).header.keyID == kid)
            }
        }
    }

    @Test("a header cached under generous limits is still refused under stricter ones")
    func limitsAreRespected() throws {
        let nested = token(#"{"alg":"HS256","x":{"y":{"z":1}}}"#)
        #expect(try CompactJWS(nested).header.algorithmName == "HS256")  // cached under the defaults
        let strict = JOSELimits(maxJSONDepth: 2)
        #expect(throws: JOSEError.self) { try CompactJWS(nested, limits: strict) }
        #expect(throws: JOSEError.self) { try CompactJWS(nested, limits: strict) }
        // Back under the defaults, the header reads as before.
        #expect(try CompactJWS(nested).header.algorithmName == "HS256")
    }

    @Test("a refused header after a cached one is refused, with the same error as uncached")
    func failuresNotCached() throws {
        let good = token(#"{"alg":"HS256","kid":"k1"}"#)
        let badType = token(#"{"alg":"HS256","kid":1}"#)
        let noAlg = token(#"{"typ":"JWT","kid":"k1"}"#)
        #expect(try CompactJWS(good).header.keyID == "k1")
        for _ in 0..<2 {
            #expect(throws: JOSEError.self) { try CompactJWS(badType) }
            do { _ = try CompactJWS(badType); Issue.record("accepted") } catch let error as JOSEError { #expect(error.code == .invalidHeader) }
            do { _ = try CompactJWS(noAlg); Issue.record("accepted") } catch let error as JOSEError { #expect(error.code == .invalidHeader) }
            #expect(try CompactJWS(good).header.keyID == "k1")
        }
    }

    @Test("JWT.verify on a cached header still applies the key's algorithm")
    func verifyAfterCacheHit() throws {
        let key = JWK(symmetricKey: Array(repeating: 0x5A, count: 32))
        let other = JWK(symmetricKey: Array(repeating: 0x5B, count: 32))
        let signed = try JWT.sign(["sub": "a"], key: key, algorithm: .hs256)
        let forged = try JWT.sign(["sub": "a"], key: other, algorithm: .hs256)
        for _ in 0..<2 {
            #expect(try JWT.verifyIgnoringIssuerAndAudience(signed, key: key).claims.subject == "a")
            #expect(throws: JOSEError.self) { try JWT.verifyIgnoringIssuerAndAudience(forged, key: key) }
        }
    }
}
