import CLibCrypto
import Foundation
import Testing

@testable import JOSE

@Suite("ECDSA signature format (RFC 7518 §3.4)")
struct ECDSASignatureFormatTests {
    /// The order n of P-256.
    static let p256Order = hexBytes("ffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551")

    /// A valid ES256 token split into signing input and `r || s`.
    static func signed() throws -> (prefix: String, signature: [UInt8], key: JWK) {
        var key = try TestKeys.pem("p256.pem")
        key.algorithm = nil
        let token = try CompactJWS.sign(payload: #"{"sub":"alice"}"#, key: key, algorithm: .es256)
        let parts = token.split(separator: ".").map(String.init)
        return (parts[0] + "." + parts[1], try Base64URL.decode(parts[2]), key.publicKey)
    }

    static func derInteger(_ bytes: [UInt8]) -> [UInt8] {
        var value = Array(bytes.drop(while: { $0 == 0 }))
        if value.isEmpty { value = [0] }
        if value[0] & 0x80 != 0 { value.insert(0, at: 0) }
        return [0x02, UInt8(value.count)] + value
    }

    static func verify(_ prefix: String, _ signature: [UInt8], _ key: JWK) throws {
        try CompactJWS(prefix + "." + Base64URL.encode(signature)).verify(with: key)
    }

    @Test("the untouched r || s signature verifies")
    func baseline() throws {
        let (prefix, signature, key) = try Self.signed()
        #expect(signature.count == 64)
        try Self.verify(prefix, signature, key)
    }

    @Test("a DER-encoded signature of the same r and s is rejected")
    func der() throws {
        let (prefix, signature, key) = try Self.signed()
        let body = Self.derInteger(Array(signature[0..<32])) + Self.derInteger(Array(signature[32...]))
        let der = [0x30, UInt8(body.count)] + body
        expectCode(.invalidSignature) { try Self.verify(prefix, der, key) }
    }

    @Test("wrong lengths are rejected", arguments: [0, 1, 63, 65, 96, 132])
    func wrongLength(_ length: Int) throws {
        let (prefix, signature, key) = try Self.signed()
        var changed = signature
        if length < changed.count { changed = Array(changed.prefix(length)) } else { changed += [UInt8](repeating: 0, count: length - changed.count) }
        expectCode(.invalidSignature) { try Self.verify(prefix, changed, key) }
    }

    @Test("r or s equal to zero is rejected", arguments: ["r", "s"])
    func zero(_ which: String) throws {
        let (prefix, signature, key) = try Self.signed()
        var changed = signature
        let range = which == "r" ? 0..<32 : 32..<64
        changed.replaceSubrange(range, with: [UInt8](repeating: 0, count: 32))
        expectCode(.invalidSignature) { try Self.verify(prefix, changed, key) }
    }

    @Test("r or s equal to n, n + original, or all ones is rejected", arguments: ["r", "s"], ["n", "ones", "plusN"])
    func outOfRange(_ which: String, _ value: String) throws {
        let (prefix, signature, key) = try Self.signed()
        let range = which == "r" ? 0..<32 : 32..<64
        var replacement: [UInt8]
        switch value {
        case "n": replacement = Self.p256Order
        case "ones": replacement = [UInt8](repeating: 0xFF, count: 32)
        default:
            // original + n, when it still fits in 32 bytes (otherwise n itself): same value mod n.
            let original = Array(signature[range])
            var sum = [UInt8](repeating: 0, count: 32)
            var carry = 0
            for index in (0..<32).reversed() {
                let total = Int(original[index]) + Int(Self.p256Order[index]) + carry
                sum[index] = UInt8(total & 0xFF)
                carry = total >> 8
            }
            replacement = carry == 0 ? sum : Self.p256Order
        }
        var changed = signature
        changed.replaceSubrange(range, with: replacement)
        expectCode(.invalidSignature) { try Self.verify(prefix, changed, key) }
    }

    @Test("the primitive's range check: r, s in [1, n-1] only")
    func rangeCheck() throws {
        let one = [UInt8](repeating: 0, count: 31) + [1]
        var nMinusOne = Self.p256Order
        nMinusOne[31] -= 1
        let good = (one + nMinusOne).withUnsafeBytes { ECDSASignature.der(fromJWS: $0, curve: .p256) }
        #expect(good != nil)
        let bad = (Self.p256Order + one).withUnsafeBytes { ECDSASignature.der(fromJWS: $0, curve: .p256) }
        #expect(bad == nil)
    }

    @Test(
        "the DER built on the stack is libcrypto's own encoding of r and s, on every curve and at the edges",
        arguments: [JWK.Curve.p256, .p384, .p521])
    func derMatchesLibcrypto(curve: JWK.Curve) throws {
        let size = curve.coordinateSize
        var values: [[UInt8]] = [
            [UInt8](repeating: 0, count: size - 1) + [1],
            [curve == .p521 ? 0x00 : 0x7F] + [UInt8](repeating: 0xFF, count: size - 1),  // below the order
            [UInt8](repeating: 0, count: 1) + [0x80] + [UInt8](repeating: 0, count: size - 2),
            [UInt8](repeating: 0, count: size / 2) + [UInt8](repeating: 0xC3, count: size - size / 2),
        ]
        if curve != .p521 { values.append([0x80] + [UInt8](repeating: 0, count: size - 1)) }  // high bit set: a padding zero
        for _ in 0..<20 {
            var random = (0..<size).map { _ in UInt8.random(in: 0...255) }
            random[0] &= curve == .p521 ? 0x00 : 0x7F  // below every order
            random[size - 1] |= 1
            values.append(random)
        }
        for r in values {
            for s in values.shuffled().prefix(4) {
                let ours = (r + s).withUnsafeBytes { ECDSASignature.der(fromJWS: $0, curve: curve) }
                #expect(ours == Self.libcryptoDER(r: r, s: s), "\(curve) r=\(r.prefix(2)) s=\(s.prefix(2))")
            }
        }
    }

    /// `i2d_ECDSA_SIG` of `r` and `s`.
    static func libcryptoDER(r: [UInt8], s: [UInt8]) -> [UInt8]? {
        guard let signature = ECDSA_SIG_new() else { return nil }
        defer { ECDSA_SIG_free(signature) }
        guard let rNumber = BN_bin2bn(r, Int32(r.count), nil), let sNumber = BN_bin2bn(s, Int32(s.count), nil),
            ECDSA_SIG_set0(signature, rNumber, sNumber) == 1
        else { return nil }
        let length = i2d_ECDSA_SIG(signature, nil)
        guard length > 0 else { return nil }
        var out = [UInt8](repeating: 0, count: Int(length))
        _ = out.withUnsafeMutableBufferPointer { buffer -> Int32 in
            var cursor = buffer.baseAddress
            return i2d_ECDSA_SIG(signature, &cursor)
        }
        return out
    }
}
