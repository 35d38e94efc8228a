import Foundation
import Testing

@testable import JOSE

@Suite("Sign and verify round trips with the keys in Keys/")
struct RoundTripTests {
    @Test(
        "every asymmetric algorithm signs with the PEM private key and verifies with the public JWK and PEM",
        arguments: TestKeys.asymmetric.map { "\($0.privateName)|\($0.publicName)|\($0.algorithm.rawValue)" })
    func asymmetric(_ row: String) throws {
        let parts = row.split(separator: "|").map(String.init)
        let algorithm = try #require(JWSAlgorithm(rawValue: parts[2]))
        var signer = try TestKeys.pem(parts[0] + ".pem")
        signer.algorithm = nil
        var verifierJWK = try TestKeys.jwk(parts[1] + ".jwk")
        verifierJWK.algorithm = nil
        let verifierPEM = try TestKeys.pem(parts[1] + ".pem")
        let token = try CompactJWS.sign(payload: #"{"sub":"alice"}"#, key: signer, algorithm: algorithm)
        let jws = try CompactJWS(token)
        try jws.verify(with: verifierJWK)
        try jws.verify(with: verifierPEM)
        #expect(String(decoding: jws.payload, as: UTF8.self) == #"{"sub":"alice"}"#)
        // A one-bit change in the signature must fail.
        var tampered = Array(token.utf8)
        let last = tampered.count - 3
        tampered[last] = tampered[last] == UInt8(ascii: "A") ? UInt8(ascii: "B") : UInt8(ascii: "A")
        let bad = try CompactJWS(String(decoding: tampered, as: UTF8.self))
        #expect { try bad.verify(with: verifierJWK) } throws: { ($0 as? JOSEError)?.code == .invalidSignature }
    }

    @Test("HS256/384/512 with the HMAC key", arguments: [JWSAlgorithm.hs256, .hs384, .hs512])
    func hmac(_ algorithm: JWSAlgorithm) throws {
        var key = try TestKeys.jwk("hmac.jwk")
        key.algorithm = nil
        let token = try CompactJWS.sign(payload: "hello", key: key, algorithm: algorithm)
        try CompactJWS(token).verify(with: key)
        let other = JWK(symmetricKey: Array(repeating: 7, count: 64))
        #expect { try CompactJWS(token).verify(with: other) } throws: { ($0 as? JOSEError)?.code == .invalidSignature }
    }
}
