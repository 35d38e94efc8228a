import Foundation
import Testing

@testable import JOSE

/// X25519 (RFC 8037 §3.2, RFC 7748): the `OKP` `X25519` JWK and ECDH-ES with it.
@Suite("JWE: X25519 keys and ECDH-ES")
struct X25519Tests {
    /// RFC 7748 §6.1: Bob's key pair and Alice's public key, and their shared secret.
    static let bobPrivate = hexBytes("5dab087e624a8a4b79e17f8b83800ee66f3bb1292618b6fd1c2f8b27ff88e0eb")
    static let bobPublic = hexBytes("de9edb7d7b7dc1b4d35b61c2ece435373f8343c85b78674dadfc7e146f882b4f")
    static let alicePublic = hexBytes("8520f0098930a754748b7ddcb43ef75a0dbf3a0d26381af4eba4a98eaa9b4e6a")
    static let shared = hexBytes("4a5d9d5ba4ce2de1728e3bf480350f25e07e21c947d19e3376f09b3c1e161742")

    static var bobJWK: String {
        #"{"kty":"OKP","crv":"X25519","x":"\#(Base64URL.encode(bobPublic))","d":"\#(Base64URL.encode(bobPrivate))","kid":"bob"}"#
    }

    @Test("the JWK parses, exports, and its thumbprint follows RFC 8037 §2 / RFC 7638")
    func jwk() throws {
        let key = try JWK(json: Self.bobJWK)
        #expect(key.keyType == .x25519)
        #expect(key.keyType.kty == "OKP")
        #expect(key.isPrivate && key.sizeInBits == 256)
        #expect(key.admittedAlgorithms.isEmpty, "an X25519 key never signs")
        #expect(!key.admits(.eddsa))
        #expect(key.publicJWK["crv"]?.stringValue == "X25519")
        #expect(key.publicJWK["x"]?.stringValue == Base64URL.encode(Self.bobPublic))
        #expect(key.publicJWK["d"] == nil)
        let exported = try key.privateJWK()
        #expect(exported["d"]?.stringValue == Base64URL.encode(Self.bobPrivate))
        #expect(try JWK(jsonObject: exported).publicJWKString == key.publicJWKString)
        #expect(!String(describing: key).contains(Base64URL.encode(Self.bobPrivate)))
        // The thumbprint input: crv, kty, x in this order, no whitespace.
        let input = #"{"crv":"X25519","kty":"OKP","x":"\#(Base64URL.encode(Self.bobPublic))"}"#
        #expect(key.thumbprint() == Base64URL.encode(DigestAlgorithm.sha256.hash(Array(input.utf8))))
        #expect(key.publicKey.thumbprint() == key.thumbprint())
        // A private half that does not match the given public half is refused.
        expectCode(.invalidKey) {
            _ = try JWK(json: #"{"kty":"OKP","crv":"X25519","x":"\#(Base64URL.encode(Self.alicePublic))","d":"\#(Base64URL.encode(Self.bobPrivate))"}"#)
        }
        expectCode(.invalidKey) { _ = try JWK(json: #"{"kty":"OKP","crv":"X25519","x":"AAAA"}"#) }
        expectCode(.unsupportedKey) { _ = try JWK(json: #"{"kty":"OKP","crv":"X448","x":"AAAA"}"#) }
    }

    @Test("RFC 7748 §6.1 shared secret")
    func rfc7748() throws {
        let bob = try JWK(json: Self.bobJWK)
        let alice = try JWK(json: #"{"kty":"OKP","crv":"X25519","x":"\#(Base64URL.encode(Self.alicePublic))"}"#)
        let bobKey = try #require(bob.evpKey), aliceKey = try #require(alice.evpKey)
        #expect(try ECDHES.sharedSecret(privateKey: bobKey, peer: aliceKey) == Self.shared)
    }

    @Test("generation: a fresh X25519 key round-trips through its JWK")
    func generation() throws {
        let key = try JWK.generate(.x25519)
        #expect(key.keyType == .x25519 && key.isPrivate)
        let again = try JWK(jsonObject: try key.privateJWK())
        #expect(again.thumbprint() == key.thumbprint())
        #expect(JWK.GenerationSpec.x25519.description == "OKP X25519")
    }

    @Test("ECDH-ES and ECDH-ES+A*KW round trips", arguments: [JWEKeyAlgorithm.ecdhES, .ecdhESA128KW, .ecdhESA192KW, .ecdhESA256KW])
    func roundTrip(_ algorithm: JWEKeyAlgorithm) throws {
        let key = try JWK.generate(.x25519)
        for encryption in JWEContentEncryption.allCases {
            let token = try CompactJWE.encrypt("x25519 ✓", to: key.publicKey, algorithm: algorithm, encryption: encryption)
            let jwe = try CompactJWE(token)
            let epk = try #require(jwe.header.members["epk"]?.objectValue)
            #expect(epk["kty"]?.stringValue == "OKP" && epk["crv"]?.stringValue == "X25519" && epk["d"] == nil)
            #expect(try jwe.decryptString(with: key) == "x25519 ✓")
            // Another X25519 key does not decrypt it; an EC key is not even tried.
            expectCode(.decryptionFailed) { _ = try jwe.decrypt(with: try JWK.generate(.x25519)) }
            expectCode(.keyAlgorithmMismatch) { _ = try jwe.decrypt(with: try JWK.generate(.ed25519)) }
        }
    }

    /// The low-order points of Curve25519 (RFC 7748 §6.1's "check for all-zero"):
    /// with any of them as `epk`, the shared secret is all zeros.
    static let lowOrderPoints: [[UInt8]] = [
        [UInt8](repeating: 0, count: 32),
        [1] + [UInt8](repeating: 0, count: 31),
        hexBytes("e0eb7a7c3b41b8ae1656e3faf19fc46ada098deb9c32b1fd866205165f49b800"),
        hexBytes("5f9c95bca3508c24b1d0b1559c83ef5b04445cc4581c8e86d8224eddd09f1157"),
        hexBytes("ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f"),
    ]

    @Test("an epk of low order (all-zero shared secret) is refused", arguments: 0..<5)
    func lowOrderEPK(_ index: Int) throws {
        let key = try JWK(json: Self.bobJWK)
        let token = try CompactJWE.encrypt("x", to: key.publicKey, algorithm: .ecdhES, encryption: .a128GCM)
        // Re-encode the protected header with a low-order epk (the tag no longer matters: the agreement fails first).
        var parts = token.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        var header = try JSONParser.parseObject(Base64URL.decode(parts[0]), limits: .default, what: "header")
        header["epk"] = .object(["kty": .string("OKP"), "crv": .string("X25519"), "x": .string(Base64URL.encode(Self.lowOrderPoints[index]))])
        parts[0] = Base64URL.encode(Array(JSONValue.object(header).jsonString().utf8))
        let code = joseCode { _ = try CompactJWE(parts.joined(separator: ".")).decrypt(with: key) }
        #expect(code == .invalidHeader)
    }
}
