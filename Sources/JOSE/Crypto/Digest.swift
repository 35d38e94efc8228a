import CLibCrypto

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A SHA-2 hash function, fetched once from libcrypto's default provider.
public enum DigestAlgorithm: String, Sendable, Hashable, CaseIterable {
    /// SHA-256
    case sha256 = "SHA256"
    /// SHA-384
    case sha384 = "SHA384"
    /// SHA-512
    case sha512 = "SHA512"

    /// Output length in bytes.
    public var outputLength: Int {
        switch self {
        case .sha256: return 32
        case .sha384: return 48
        case .sha512: return 64
        }
    }

    var md: OpaquePointer { FetchedDigests.shared.md(self) }

    /// Slot index for per-digest context pools.
    var slot: Int {
        switch self {
        case .sha256: return 0
        case .sha384: return 1
        case .sha512: return 2
        }
    }

    /// Hashes `bytes` (for the package's modules: thumbprints, PKCE, `at_hash`, cache keys).
    package func hash<Bytes: ContiguousBytes>(_ bytes: Bytes) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: outputLength)
        bytes.withUnsafeBytes { input in
            out.withUnsafeMutableBytes { output in digest(input, into: output) }
        }
        return out
    }

    /// Calls `body` with the digest of `input`, held on the stack (no array is made for it).
    package func withHash<R>(of input: UnsafeRawBufferPointer, _ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try withUnsafeTemporaryAllocation(byteCount: 64, alignment: 8) { output in
            digest(input, into: output)
            return try body(UnsafeRawBufferPointer(rebasing: output[0..<outputLength]))
        }
    }

    /// The one hashing step: `input`'s digest into the first ``outputLength`` bytes of `output` (at least that long),
    /// on this thread's context for the digest (``ThreadDigestContexts``), or `EVP_Digest` when there is none.
    private func digest(_ input: UnsafeRawBufferPointer, into output: UnsafeMutableRawBufferPointer) {
        let target = output.baseAddress?.assumingMemoryBound(to: UInt8.self)
        var length: UInt32 = 0
        if let context = ThreadDigestContexts.context(for: self), EVP_DigestInit_ex(context, md, nil) == 1,
            EVP_DigestUpdate(context, input.baseAddress, input.count) == 1, EVP_DigestFinal_ex(context, target, &length) == 1
        {
            return
        }
        _ = EVP_Digest(input.baseAddress, input.count, target, &length, md, nil)
    }
}

/// `EVP_MD_fetch` results are immutable and reference-counted by libcrypto;
/// fetching once avoids the implicit-fetch cost on every hash.
final class FetchedDigests: @unchecked Sendable {
    static let shared = FetchedDigests()
    private let sha256: OpaquePointer
    private let sha384: OpaquePointer
    private let sha512: OpaquePointer

    private init() {
        // The default provider always has SHA-2; failing to fetch them means a broken libcrypto
        // install. No input reaches this: it runs once, with fixed names, before any token is read.
        guard let a = EVP_MD_fetch(nil, "SHA256", nil), let b = EVP_MD_fetch(nil, "SHA384", nil),
            let c = EVP_MD_fetch(nil, "SHA512", nil)
        else {
            fatalError("libcrypto has no SHA-2 digests: the OpenSSL installation is broken")
        }
        (sha256, sha384, sha512) = (a, b, c)
    }

    func md(_ algorithm: DigestAlgorithm) -> OpaquePointer {
        switch algorithm {
        case .sha256: return sha256
        case .sha384: return sha384
        case .sha512: return sha512
        }
    }
}
