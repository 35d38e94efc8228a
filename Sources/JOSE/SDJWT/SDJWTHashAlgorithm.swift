import CLibCrypto

/// The hash function of an SD-JWT's disclosure digests (`_sd_alg`, RFC 9901 §4.1.1): only these three are accepted.
public enum SDJWTHashAlgorithm: String, Sendable, Hashable, CaseIterable {
    /// SHA-256, the default when `_sd_alg` is absent.
    case sha256 = "sha-256"
    /// SHA-384.
    case sha384 = "sha-384"
    /// SHA-512.
    case sha512 = "sha-512"

    /// The algorithm `_sd_alg` names (SHA-256 when absent).
    /// - Throws: ``JOSEError`` `.sdUnsupportedHashAlgorithm` for any other name or a non-string value.
    public init(sdAlg value: JSONValue?) throws {
        guard let value else {
            self = .sha256
            return
        }
        guard let name = value.stringValue, let algorithm = SDJWTHashAlgorithm(rawValue: name) else {
            throw JOSEError(.sdUnsupportedHashAlgorithm, "\"_sd_alg\" must be sha-256, sha-384 or sha-512", member: "_sd_alg")
        }
        self = algorithm
    }

    var digest: DigestAlgorithm {
        switch self {
        case .sha256: return .sha256
        case .sha384: return .sha384
        case .sha512: return .sha512
        }
    }

    /// The Base64URL digest of the US-ASCII text `text` (a disclosure, or a presentation for `sd_hash`).
    public func digest(of text: String) -> String {
        var text = text
        // Hashed in place: a disclosure or a presentation is not copied into an array first.
        return text.withUTF8 { digest.withHash(of: UnsafeRawBufferPointer($0)) { Base64URL.encode($0) } }
    }

    /// The Base64URL digest of `presentation`'s text up to and including the last `~` (``SDJWT/withoutKeyBinding``),
    /// hashed part by part: the text is not put together first.
    func digest(ofPresentationWithoutKeyBinding presentation: SDJWT) -> String {
        // This thread's context for the digest (no context made and freed, no new reference on the digest per presentation).
        guard let context = ThreadDigestContexts.context(for: digest) else { return digest(of: presentation.withoutKeyBinding) }
        var tilde = UInt8(ascii: "~")
        var ok = EVP_DigestInit_ex(context, digest.md, nil) == 1
        func add(_ part: String) {
            var part = part
            ok = ok && part.withUTF8 { EVP_DigestUpdate(context, $0.baseAddress, $0.count) } == 1
            ok = ok && EVP_DigestUpdate(context, &tilde, 1) == 1
        }
        add(presentation.issuerSignedJWT)
        for disclosure in presentation.disclosures { add(disclosure) }
        let encoded = withUnsafeTemporaryAllocation(byteCount: 64, alignment: 8) { output -> String? in
            var length: UInt32 = 0
            guard ok, EVP_DigestFinal_ex(context, output.baseAddress?.assumingMemoryBound(to: UInt8.self), &length) == 1,
                Int(length) == digest.outputLength
            else { return nil }
            return Base64URL.encode(UnsafeRawBufferPointer(rebasing: output[0..<Int(length)]))
        }
        // A context libcrypto could not run: the one-shot digest of the assembled text instead.
        return encoded ?? digest(of: presentation.withoutKeyBinding)
    }
}
