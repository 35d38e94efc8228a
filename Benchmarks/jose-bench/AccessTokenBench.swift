import Foundation
import JOSE
import OIDC
import OIDCResourceServer

/// `jose-bench --access-token [ALG...]`: RFC 9068 access-token validations per second through
/// `AccessTokenValidator.validate` (keys from a warm `JWKSetCache`: every check of the public
/// API, the actor hop included) against the raw libcrypto signature check of the same token,
/// measured the same way as the JWT lines (alternating slices, medians, per-pair ratio):
///   RFC9068 ES256 threads=1 api=14100 raw=15800 ratio=0.89
enum AccessTokenBench {
    static let issuer = "https://as.example"
    static let audience = "https://api.example"

    /// Serves one JWK Set from memory: after the first fetch the cache is warm.
    struct MemoryTransport: HTTPTransport {
        let jwks: [UInt8]
        func send(_ request: TransportRequest) async throws -> TransportResponse {
            TransportResponse(status: 200, headers: ["Content-Type": "application/json"], body: jwks)
        }
    }

    static func claims() -> JSONObject {
        let now = Int64(Date().timeIntervalSince1970)
        return ["iss": .string(issuer), "sub": "00u1a2b3c4d5e6f7g8h9", "aud": .string(audience), "client_id": "0oa9z8y7x6w5v4u3t2s1",
                "iat": .integer(now), "exp": .integer(now + 3600), "jti": "8cf24661-9878-4dda-b2e8-01eb05795bd4",
                "scope": "openid api.read api.write", "auth_time": .integer(now - 30), "acr": "urn:mace:incommon:iap:silver",
                "amr": .array(["pwd", "mfa"])]
    }

    static func run(cases: [(JWSAlgorithm, String)], keysDirectory: URL, seconds: Double, rounds: Int) async throws {
        for (algorithm, keyName) in cases where algorithm.family != .hmac {
            func read(_ name: String) throws -> String { try String(contentsOf: keysDirectory.appendingPathComponent(name), encoding: .utf8) }
            let publicJWK = try read("\(keyName).pub.jwk")
            // The published key names its algorithm (Keys/*.pub.jwk): PS256 on the RS256 key has no line here.
            if let published = try JWK(json: publicJWK).algorithm, published != algorithm.rawValue { continue }
            var privateKey = try JWK(pem: read("\(keyName).pem"))
            privateKey.algorithm = nil
            privateKey.keyID = try JWK(json: publicJWK).keyID
            let token = try JWT.sign(claims(), key: privateKey, algorithm: algorithm, header: ["typ": "at+jwt"])
            let publicPEM = try read("\(keyName).pub.pem")
            let jwks = Array(#"{"keys":[\#(publicJWK)]}"#.utf8)
            let cache = try JWKSetCache(jwksURI: URL(string: "https://as.example/jwks")!, transport: MemoryTransport(jwks: jwks),
                                        configuration: .init(defaultTimeToLive: 86_400, honoursCacheControl: false))
            let validator = AccessTokenValidator(issuer: issuer, audience: audience, keys: .cache(cache))
            _ = try await validator.validate(token, requiredScopes: ["api.read"])  // warms the cache; fails loudly if anything is off

            let parts = token.split(separator: ".")
            let input = Array("\(parts[0]).\(parts[1])".utf8)
            let signature = try Base64URL.decode(String(parts[2]))
            let isEdDSA = algorithm.family == .eddsa
            let raw: @Sendable () throws -> () throws -> Bool = {
                if isEdDSA { return try RawEdDSA(pem: publicPEM, input: input, signature: signature).loop() }
                return try RawDigestVerify(pem: publicPEM, algorithm: algorithm, input: input, jwsSignature: signature).loop()
            }
            for threads in [1, 2] {
                var apiRates: [Double] = []
                var rawRates: [Double] = []
                for _ in 0..<rounds {
                    rawRates.append(try Runner.rate(threads: threads, seconds: seconds, make: raw))
                    apiRates.append(try await rate(tasks: threads, seconds: seconds) {
                        _ = try await validator.validate(token, requiredScopes: ["api.read"])
                    })
                }
                let ratio = Runner.median(zip(apiRates, rawRates).map { $0 / $1 })
                print("RFC9068 \(algorithm.rawValue) threads=\(threads) api=\(Int(Runner.median(apiRates))) raw=\(Int(Runner.median(rawRates))) ratio=\(String(format: "%.2f", ratio))")
                fflush(nil)
            }
        }
    }

    /// Operations per second of `operation` run back to back in `tasks` concurrent tasks for about `seconds`.
    static func rate(tasks: Int, seconds: Double, _ operation: @escaping @Sendable () async throws -> Void) async throws -> Double {
        let start = DispatchTime.now().uptimeNanoseconds
        let deadline = start + UInt64(seconds * 1e9)
        let total = try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<tasks {
                group.addTask {
                    var done = 0
                    repeat {
                        for _ in 0..<16 { try await operation() }
                        done += 16
                    } while DispatchTime.now().uptimeNanoseconds < deadline
                    return done
                }
            }
            return try await group.reduce(0, +)
        }
        return Double(total) / (Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9)
    }
}
