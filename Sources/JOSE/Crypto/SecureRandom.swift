import CLibCrypto

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Cryptographically secure random bytes from libcrypto's DRBG (for the package's
/// modules: state, nonce, PKCE verifiers, `jti`).
package enum SecureRandom {
    /// `count` random bytes.
    /// - Throws: ``JOSEError`` `.cryptoFailure` if the DRBG cannot produce output.
    package static func bytes(_ count: Int) throws -> [UInt8] {
        var out = [UInt8](repeating: 0, count: count)
        let ok = out.withUnsafeMutableBufferPointer { RAND_bytes($0.baseAddress, Int32($0.count)) }
        guard ok == 1 else { throw cryptoFailure("produce random bytes") }
        return out
    }
}

/// Constant-time comparison for MACs, `state`, `nonce` and other secrets (for the
/// package's modules; `ContiguousBytes` is Foundation's).
package enum ConstantTime {
    /// Whether two byte strings are equal, in time that depends only on their lengths.
    package static func equals<A: ContiguousBytes, B: ContiguousBytes>(_ a: A, _ b: B) -> Bool {
        a.withUnsafeBytes { x in
            b.withUnsafeBytes { y in
                x.count == y.count && (x.count == 0 || CRYPTO_memcmp(x.baseAddress, y.baseAddress, x.count) == 0)
            }
        }
    }

    /// Whether two strings have equal UTF-8 bytes, in constant time for equal lengths.
    package static func equals(_ a: String, _ b: String) -> Bool {
        equals(Array(a.utf8), Array(b.utf8))
    }
}
