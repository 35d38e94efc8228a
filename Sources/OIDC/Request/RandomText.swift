import JOSE

/// Random text from libcrypto's DRBG, for state, nonce and code verifiers.
enum RandomText {
    /// The RFC 3986 unreserved characters, which are also the RFC 7636 code-verifier alphabet (66 characters).
    static let unreservedAlphabet: [UInt8] = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~".utf8)

    /// `byteCount` random bytes as unpadded Base64URL.
    static func base64URL(byteCount: Int) throws -> String {
        Base64URL.encode(try randomBytes(byteCount))
    }

    /// `length` characters drawn uniformly from ``unreservedAlphabet`` (rejection sampling, no modulo bias).
    static func unreserved(length: Int) throws -> String {
        let alphabet = unreservedAlphabet
        let limit = UInt8(256 - 256 % alphabet.count)  // 198: the largest multiple of 66 not above 256
        var out: [UInt8] = []
        out.reserveCapacity(length)
        while out.count < length {
            for byte in try randomBytes(length - out.count + 16) where byte < limit && out.count < length {
                out.append(alphabet[Int(byte) % alphabet.count])
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    private static func randomBytes(_ count: Int) throws -> [UInt8] {
        do {
            return try SecureRandom.bytes(count)
        } catch let error as JOSEError {
            throw OIDCError(.randomGenerationFailed, "the random generator failed", joseError: error)
        }
    }
}
