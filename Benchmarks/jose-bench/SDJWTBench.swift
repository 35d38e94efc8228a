import CLibCrypto
import Foundation
import JOSE

/// `jose-bench --sd-jwt`: verifying an SD-JWT+KB presentation with 10 disclosures and key binding (ES256 issuer,
/// ES256 holder) through the public API (`SDJWT(_:)` then `verify(key:policy:)` with a key-binding requirement),
/// against raw libcrypto doing the two ES256 verifications it needs (issuer-signed JWT and KB-JWT), with every
/// key and context prepared once per thread:
///   SD-JWT+KB ES256 disclosures=10 threads=1 api=… raw=… ratio=…
enum SDJWTBench {
    struct Fixture: @unchecked Sendable {
        let presentation: String
        let issuerKey: JWK
        let policy: SDJWTVerificationPolicy
        let issuer: BenchFixture
        let issuerPEM: String
        let holderPEM: String
        let issuerInput: [UInt8]
        let issuerSignature: [UInt8]
        let kbInput: [UInt8]
        let kbSignature: [UInt8]

        init(keysDirectory: URL, payload: String) throws {
            issuer = try BenchFixture(algorithm: .es256, keyName: "p256", keysDirectory: keysDirectory, payload: payload)
            var signingKey = try JWK(pem: String(contentsOf: keysDirectory.appendingPathComponent("p256.pem"), encoding: .utf8))
            signingKey.algorithm = nil
            let holder = try JWK.generate(.ec(.p256))
            var claims = try JSONParser.parseObject(Array(payload.utf8), what: "payload")
            let names = (1...10).map { "claim_\($0)" }
            for name in names { claims[name] = .string("value of \(name)") }
            let issued = try SDJWT.issue(
                claims: claims, disclosable: names.map { "/" + $0 }, key: signingKey, algorithm: .es256, type: "example+sd-jwt",
                holderKey: holder.publicKey)
            let now = Date()
            let bound = try issued.presenting(names.map { "/" + $0 }).addingKeyBinding(
                key: holder, algorithm: .es256, audience: "https://verifier.example", nonce: "bench-nonce", issuedAt: now)
            presentation = bound.compact
            issuerKey = issuer.key
            policy = SDJWTVerificationPolicy(
                claims: JWTValidationPolicy(clock: { now }, leeway: 60),
                keyBinding: SDJWTKeyBinding(audience: "https://verifier.example", nonce: "bench-nonce"))
            issuerPEM = issuer.publicKeyPEM
            holderPEM = try holder.publicKey.publicKeyPEM()
            func split(_ jws: String) throws -> ([UInt8], [UInt8]) {
                let parts = jws.split(separator: ".")
                return (Array("\(parts[0]).\(parts[1])".utf8), try Base64URL.decode(String(parts[2])))
            }
            (issuerInput, issuerSignature) = try split(bound.issuerSignedJWT)
            (kbInput, kbSignature) = try split(bound.keyBindingJWT ?? "")
            guard try makeAPILoop()(), try makeRawLoop()() else { throw BenchError.libcrypto("sanity") }
        }

        func makeAPILoop() -> () throws -> Bool {
            let presentation = self.presentation, key = self.issuerKey, policy = self.policy
            return {
                let verified = try SDJWT(presentation).verify(key: key, policy: policy)
                return verified.disclosures.count == 10 && verified.keyBinding != nil
            }
        }

        func makeRawLoop() throws -> () throws -> Bool {
            let first = try RawDigestVerify(pem: issuerPEM, algorithm: .es256, input: issuerInput, jwsSignature: issuerSignature).loop()
            let second = try RawDigestVerify(pem: holderPEM, algorithm: .es256, input: kbInput, jwsSignature: kbSignature).loop()
            return { try first() && second() }
        }
    }

    static func run(keysDirectory: URL, payload: String, seconds: Double, rounds: Int) throws {
        let fixture = try Fixture(keysDirectory: keysDirectory, payload: payload)
        for threads in [1, 2] {
            var apiRates: [Double] = []
            var rawRates: [Double] = []
            for _ in 0..<rounds {
                rawRates.append(try Runner.rate(threads: threads, seconds: seconds) { try fixture.makeRawLoop() })
                apiRates.append(try Runner.rate(threads: threads, seconds: seconds) { fixture.makeAPILoop() })
            }
            let ratio = Runner.median(zip(apiRates, rawRates).map { $0 / $1 })
            print(
                "SD-JWT+KB ES256 disclosures=10 threads=\(threads) api=\(Int(Runner.median(apiRates))) raw=\(Int(Runner.median(rawRates))) "
                    + "ratio=\(String(format: "%.2f", ratio))")
            fflush(nil)
        }
    }
}
