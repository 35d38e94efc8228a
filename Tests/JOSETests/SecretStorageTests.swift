import CLibCrypto
import Testing

@testable import JOSE

/// Issue 13 "Private key components": secrets live in storage the library owns
/// and wipes, and private components are built in secure `BIGNUM`s.
@Suite("Secret storage: owned buffers, secure key components")
struct SecretStorageTests {
    @Test("SecretBytes copies the caller's array: a different buffer, and dropping it leaves the array unchanged")
    func ownsItsStorage() {
        let callerBytes: [UInt8] = Array(0..<48).map { UInt8($0 * 5 + 1) }
        let original = callerBytes
        var secret: SecretBytes? = SecretBytes(callerBytes)
        let callerAddress = callerBytes.withUnsafeBytes { UInt(bitPattern: $0.baseAddress) }
        let secretAddress = secret?.withBytes { UInt(bitPattern: $0.baseAddress) }
        // Sharing the array's copy-on-write buffer would make the deinit cleanse
        // act on (or copy away from) memory the caller still holds.
        #expect(secretAddress != callerAddress)
        #expect(secret?.withBytes { Array($0) } == original)
        #expect(secret?.count == 48)
        secret = nil
        #expect(callerBytes == original)
    }

    @Test("an HMAC key made from an array leaves the array intact when the key goes away, and signs the same while alive")
    func keyFromArray() throws {
        let bytes = [UInt8](repeating: 0x5A, count: 32)
        do {
            let key = JWK(symmetricKey: bytes)
            let again = JWK(symmetricKey: [UInt8](repeating: 0x5A, count: 32))
            #expect(try JWT.sign(["sub": "a"], key: key, algorithm: .hs256) == JWT.sign(["sub": "a"], key: again, algorithm: .hs256))
        }
        #expect(bytes == [UInt8](repeating: 0x5A, count: 32))
    }

    @Test("private components are secure BIGNUMs; public ones are not")
    func secureNumbers() throws {
        let secure = try #require(KeyBuilder.makeNumber([1, 2, 3, 4], secure: true))
        defer { BN_clear_free(secure) }
        #expect(BN_get_flags(secure, BN_FLG_SECURE) != 0)
        #expect(BN_num_bits(secure) == 25)
        let plain = try #require(KeyBuilder.makeNumber([1, 2, 3, 4], secure: false))
        defer { BN_clear_free(plain) }
        #expect(BN_get_flags(plain, BN_FLG_SECURE) == 0)
    }
}
