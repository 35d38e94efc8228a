import Foundation
import Testing

@testable import JOSE

/// One key and one set of claims shared by many tasks at once: the pooled
/// libcrypto contexts, the per-thread header cache and the claims' object (decoded
/// on each read) must hand out no state to two threads (CI runs this suite under
/// the thread sanitizer).
@Suite("Concurrent use of shared keys and claims")
struct ConcurrentUseTests {
    @Test(
        "64 tasks verify with one shared key per algorithm and all see the same claims",
        arguments: [JWSAlgorithm.rs256, .ps256, .es256, .eddsa, .hs256])
    func sharedKey(algorithm: JWSAlgorithm) async throws {
        let (signingKey, verificationKey) = try Self.keys(for: algorithm)
        let claims: JSONObject = ["sub": "shared", "n": 7]
        let token = try JWT.sign(claims, key: signingKey, algorithm: algorithm)
        var tampered = Array(token.utf8)
        tampered[tampered.count - 3] = tampered[tampered.count - 3] == UInt8(ascii: "A") ? UInt8(ascii: "B") : UInt8(ascii: "A")
        let bad = String(decoding: tampered, as: UTF8.self)

        let results = try await withThrowingTaskGroup(of: (Bool, Bool).self) { group in
            for task in 0..<64 {
                group.addTask {
                    var goodOK = true, badRejected = true
                    for round in 0..<20 {
                        // Alternate good and forged tokens so a failed context is dropped mid-run.
                        if (task + round) % 3 == 0 {
                            badRejected = badRejected && ((try? JWT.verifyIgnoringIssuerAndAudience(bad, key: verificationKey)) == nil)
                        } else {
                            let subject = try JWT.verifyIgnoringIssuerAndAudience(token, key: verificationKey).claims.subject
                            goodOK = goodOK && subject == "shared"
                        }
                    }
                    return (goodOK, badRejected)
                }
            }
            var all: [(Bool, Bool)] = []
            for try await result in group { all.append(result) }
            return all
        }
        #expect(results.count == 64)
        #expect(results.allSatisfy { $0.0 }, "a valid token failed or decoded wrongly under concurrency")
        #expect(results.allSatisfy { $0.1 }, "a forged token was accepted under concurrency")
    }

    @Test("copies of one JWTClaims read from many tasks all decode the same object")
    func sharedClaims() async throws {
        let key = try TestKeys.jwk("hmac.jwk")
        let token = try JWT.sign(["sub": "lazy", "aud": ["a", "b"]], key: key, algorithm: .hs256)
        let claims = try JWT.verifyIgnoringIssuerAndAudience(token, key: key).claims
        let subjects = await withTaskGroup(of: String?.self) { group in
            for _ in 0..<64 { group.addTask { claims.object["sub"]?.stringValue } }
            var seen: [String?] = []
            for await subject in group { seen.append(subject) }
            return seen
        }
        #expect(subjects == Array(repeating: "lazy", count: 64))
    }

    /// The signing and verification keys for `algorithm`, from ``TestKeys``.
    static func keys(for algorithm: JWSAlgorithm) throws -> (JWK, JWK) {
        if algorithm == .hs256 { let key = try TestKeys.jwk("hmac.jwk"); return (key, key) }
        let names = try #require(TestKeys.asymmetric.first { $0.algorithm == algorithm })
        return (try TestKeys.pem("\(names.privateName).pem"), try TestKeys.pem("\(names.publicName).pem"))
    }
}
