import Foundation
import Testing

@testable import JOSE

/// `JWT.verify` reads the token once, in place; `CompactJWS` then `verify` then
/// `JWTClaims` is the two-step path. Both must end the same way on every token.
@Suite("One-pass JWT.verify agrees with the two-step path")
struct OnePassVerificationTests {
    static let now = Date(timeIntervalSince1970: 1_700_000_000)
    static let validation = JWTValidationPolicy(clock: { now })

    /// Tokens that end at each stage: shape, Base64URL of each segment, header JSON and
    /// rules, key choice, signature, payload JSON, claims.
    static func tokens() throws -> [(String, String)] {
        let key = try TestKeys.jwk("hmac.jwk")
        let secret = JWK(symmetricKey: Array(repeating: 0x5A, count: 32))
        func signed(_ header: String, _ payload: String, with signer: JWK = key) throws -> String {
            let input = Base64URL.encode(header) + "." + Base64URL.encode(payload)
            let tag = try Signer.sign(input: Array(input.utf8), key: signer, algorithm: .hs256)
            return input + "." + Base64URL.encode(tag)
        }
        let header = #"{"alg":"HS256","kid":"\#(key.keyID ?? "")"}"#
        let good = try signed(header, #"{"sub":"a","exp":1800000000}"#)
        let parts = good.split(separator: ".").map(String.init)
        return [
            ("valid", good),
            ("empty", ""),
            ("two segments", parts[0] + "." + parts[1]),
            ("four segments", good + ".x"),
            ("empty header", "." + parts[1] + "." + parts[2]),
            ("bad Base64 in the header", "e=" + parts[0] + "." + parts[1] + "." + parts[2]),
            ("bad Base64 in the payload", parts[0] + ".a*b." + parts[2]),
            ("bad Base64 in the signature", parts[0] + "." + parts[1] + ".a" + parts[2]),
            ("bad payload and bad signature", parts[0] + ".a*b.a" + parts[2]),
            ("header not JSON", Base64URL.encode("{alg") + "." + parts[1] + "." + parts[2]),
            ("header an array", Base64URL.encode("[1]") + "." + parts[1] + "." + parts[2]),
            ("duplicate alg", Base64URL.encode(#"{"alg":"HS256","alg":"HS256"}"#) + "." + parts[1] + "." + parts[2]),
            ("no alg", Base64URL.encode(#"{"typ":"JWT"}"#) + "." + parts[1] + "." + parts[2]),
            ("alg none", Base64URL.encode(#"{"alg":"none"}"#) + "." + parts[1] + "."),
            ("alg RS256", Base64URL.encode(#"{"alg":"RS256"}"#) + "." + parts[1] + "." + parts[2]),
            ("kid a number", Base64URL.encode(#"{"alg":"HS256","kid":1}"#) + "." + parts[1] + "." + parts[2]),
            ("unknown crit", try signed(#"{"alg":"HS256","crit":["x"],"x":1}"#, #"{"sub":"a"}"#)),
            ("b64 false", try signed(#"{"alg":"HS256","crit":["b64"],"b64":false}"#, #"{"sub":"a"}"#)),
            ("unknown kid", try signed(#"{"alg":"HS256","kid":"nobody"}"#, #"{"sub":"a"}"#)),
            ("escaped alg", try signed(#"{"\u0061lg":"HS\u0032\u00356"}"#, #"{"sub":"a"}"#)),
            ("wrong signature", parts[0] + "." + parts[1] + "." + Base64URL.encode(Array(repeating: 0, count: 32))),
            ("other secret", try signed(header, #"{"sub":"a"}"#, with: secret)),
            ("payload not JSON", try signed(header, "{sub")),
            ("payload an array", try signed(header, "[]")),
            ("duplicate claim", try signed(header, #"{"sub":"a","sub":"b"}"#)),
            ("expired", try signed(header, #"{"exp":1600000000}"#)),
            ("not yet valid", try signed(header, #"{"nbf":1800000000}"#)),
            ("exp a string", try signed(header, #"{"exp":"soon"}"#)),
            ("oversized", String(repeating: "a", count: 70_000)),
        ]
    }

    func outcome(_ body: () throws -> Void) -> String {
        do { try body(); return "ok" } catch let error as JOSEError { return error.code.rawValue } catch { return "\(error)" }
    }

    /// The outcome of the one-pass call, after checking that the two-step path
    /// (`CompactJWS`, then `verify` as `verifyParsed` does it, then the claims) ends alike.
    func agreed(
        _ name: String, _ token: String, policy: JWSVerificationPolicy, onePass: () throws -> Void,
        verifyParsed: (CompactJWS) throws -> Void
    ) -> String {
        let one = outcome(onePass)
        let two = outcome {
            let jws = try CompactJWS(token, limits: policy.limits)
            try verifyParsed(jws)
            try JWTClaims(payload: jws.payload, limits: policy.limits).validate(Self.validation)
        }
        #expect(one == two, "\(name): one pass \(one), two steps \(two)")
        return one
    }

    @Test("each token ends alike with one key, with the key set, and under a permissive policy")
    func agree() throws {
        let key = try TestKeys.jwk("hmac.jwk")
        let set = JWKSet(keys: [key])
        let permissive = JWSVerificationPolicy(allowsShortHMACKeys: true, understoodCriticalHeaders: ["b64", "x"], allowsUnencodedPayload: true)
        var outcomes: Set<String> = []
        for (name, token) in try Self.tokens() {
            for policy in [JWSVerificationPolicy.default, permissive] {
                outcomes.insert(
                    agreed(
                        name, token, policy: policy,
                        onePass: { _ = try JWT.verifyIgnoringIssuerAndAudience(token, key: key, policy: policy, validation: Self.validation) },
                        verifyParsed: { try $0.verify(with: key, policy: policy) }))
                outcomes.insert(
                    agreed(
                        name + " (key set)", token, policy: policy,
                        onePass: { _ = try JWT.verifyIgnoringIssuerAndAudience(token, keys: set, policy: policy, validation: Self.validation) },
                        verifyParsed: { try $0.verify(with: set, policy: policy) }))
            }
        }
        // The list reaches every stage: success and at least ten distinct error codes.
        #expect(outcomes.contains("ok"))
        #expect(outcomes.count >= 11, "\(outcomes.sorted())")
    }
}
