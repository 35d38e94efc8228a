import Foundation
import Testing

@testable import JOSE

/// Issue 36: keys taken from a token or a proof are held to one named rule before any key is built.
@Suite("Embedded key limits")
struct EmbeddedKeyLimitsTests {
    static func rsa(n: [UInt8]? = nil, e: [UInt8]) throws -> JSONObject {
        var object = try JWK.generate(.rsa(bits: 2048)).publicJWK
        if let n { object["n"] = .string(Base64URL.encode(n)) }
        object["e"] = .string(Base64URL.encode(e))
        return object
    }

    @Test("RSA e at most 2^32, n at most 8192 bits: beyond is embedded_key_too_costly naming the member; within parses")
    func limits() throws {
        #expect(EmbeddedKeyLimits.maximumRSAPublicExponent == 1 << 32 && EmbeddedKeyLimits.maximumRSAModulusBits == 8192)
        for e: [UInt8] in [[0x01, 0x00, 0x01], [0xFF, 0xFF, 0xFF, 0xFF], [0x00, 0x00, 0x01, 0x00, 0x01]] {
            #expect(try JWK(embeddedJSONObject: Self.rsa(e: e)).keyType == .rsa, "\(e)")
        }
        for e: [UInt8] in [[0x01, 0x00, 0x00, 0x00, 0x01], [UInt8](repeating: 0xFF, count: 9), [0x40] + [UInt8](repeating: 0x01, count: 383)] {
            do {
                _ = try JWK(embeddedJSONObject: Self.rsa(e: e))
                Issue.record("the exponent \(e.prefix(8)) was accepted")
            } catch let error as JOSEError {
                #expect(error.code == .embeddedKeyTooCostly && error.member == "e", "\(error)")
            }
        }
        do {
            _ = try JWK(embeddedJSONObject: Self.rsa(n: [UInt8](repeating: 0xFF, count: 1025), e: [1, 0, 1]))
            Issue.record("an 8200-bit modulus was accepted")
        } catch let error as JOSEError {
            #expect(error.code == .embeddedKeyTooCostly && error.member == "n")
        }
        #expect(EmbeddedKeyLimits.bitLength([0x01, 0x00][...]) == 9 && EmbeddedKeyLimits.bitLength([][...]) == 0)
    }
}
