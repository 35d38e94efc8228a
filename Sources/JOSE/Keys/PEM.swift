extension JWK {
    /// Parses the first key in PEM text: a SubjectPublicKeyInfo public key
    /// (`PUBLIC KEY`), a PKCS#8 (`PRIVATE KEY`), PKCS#1 (`RSA PRIVATE KEY`) or
    /// SEC1 (`EC PRIVATE KEY`) private key, or an X.509 certificate
    /// (`CERTIFICATE`, whose subject public key is used). Key algorithms: RSA,
    /// EC P-256/P-384/P-521, Ed25519 and X25519 (RFC 8410; an X25519 key is for
    /// JWE `ECDH-ES` only and never signs).
    ///
    /// The DER is read by a strict in-house reader (definite, minimal lengths,
    /// minimal INTEGERs, no trailing bytes) and the key is built from its
    /// components with the same checks as a JWK. Encrypted private keys are
    /// refused rather than prompting for a passphrase.
    /// - Throws: ``JOSEError`` `.invalidPEM` (armour, Base64 or DER structure),
    ///   `.invalidKey` (inconsistent or out-of-range components), `.unsupportedKey`
    ///   (algorithm, curve or structure version), `.weakKey` (ROCA).
    public init(pem: String) throws {
        let (der, format) = try JWK.derBlock(of: pem)
        self = try JWK(der: der, format: format, key: PEMKeyReader.read(der, format: format))
    }

    /// The public key of the first key in PEM text, of any of the forms
    /// ``init(pem:)`` reads. When the PEM carries the public half (a public key,
    /// a certificate, any RSA private key, an EC, Ed25519 or X25519 private key stored
    /// with its public key), only that half is read and built: the private
    /// components are parsed for structure but never handed to libcrypto.
    /// Otherwise the private key is built and its public half taken.
    /// - Throws: as ``init(pem:)``.
    public init(publicKeyFromPEM pem: String) throws {
        let (der, format) = try JWK.derBlock(of: pem)
        let key = try PEMKeyReader.read(der, format: format)
        if let publicHalf = key.publicHalf {
            self = try JWK(derKey: publicHalf)
        } else {
            self = try JWK(der: der, format: format, key: key).publicKey
        }
    }

    /// The DER of the first PEM block and the key format its label names.
    private static func derBlock(of pem: String) throws -> (der: [UInt8], format: PEMKeyFormat) {
        guard let label = PEMBlock.firstLabel(in: pem) else {
            throw JOSEError(.invalidPEM, "no \"-----BEGIN ...-----\" block found")
        }
        guard let format = PEMKeyFormat(label: label) else {
            if label == "ENCRYPTED PRIVATE KEY" {
                throw JOSEError(.unsupportedKey, "encrypted private keys are not supported; decrypt it first (openssl pkey -in KEY -out PLAIN)")
            }
            throw JOSEError(.invalidPEM, "PEM block \"\(label.jsonSafePrefix)\" is not a key or certificate")
        }
        return (try PEMBlock.der(of: pem, label: label), format)
    }

    /// Builds the key read from `der`.
    private init(der: [UInt8], format: PEMKeyFormat, key: DERKey) throws {
        if case .ec(let curve, nil, let d?) = key {
            // An EC private key stored without its public point. OpenSSL 3.0's
            // EVP_PKEY_fromdata does not derive the point from "priv" alone, so
            // libcrypto's own decoder computes it (this case only), and the key is
            // then built and checked from the components like any other.
            let point = try OpenSSLKeyDecoder.publicPoint(der, format: format, curve: curve)
            self = try JWK.makeEC(curve: curve, point: point, d: d)
        } else {
            self = try JWK(derKey: key)
        }
    }
}

/// PEM armour (RFC 7468): finds a block and decodes its Base64 body strictly.
package enum PEMBlock {
    package static func firstLabel(in text: String) -> String? {
        let bytes = Array(text.utf8)
        let begin = Array("-----BEGIN ".utf8)
        guard let start = find(begin, in: bytes, from: 0) else { return nil }
        let labelStart = start + begin.count
        guard let end = find(Array("-----".utf8), in: bytes, from: labelStart) else { return nil }
        return String(decoding: bytes[labelStart..<end], as: UTF8.self)
    }

    /// The DER bytes of the first block labelled `label`. The body must be plain
    /// standard Base64 (whitespace between characters is ignored) with correct
    /// padding: `=` only at the end, making whole 4-character groups.
    /// - Throws: ``JOSEError`` `.invalidPEM`.
    package static func der(of text: String, label: String) throws -> [UInt8] {
        let bytes = Array(text.utf8)
        let beginLine = Array("-----BEGIN \(label)-----".utf8)
        guard let begin = find(beginLine, in: bytes, from: 0) else { throw JOSEError(.invalidPEM, "no BEGIN line for the PEM block") }
        let bodyStart = begin + beginLine.count
        guard let end = find(Array("-----END \(label)-----".utf8), in: bytes, from: bodyStart) else {
            throw JOSEError(.invalidPEM, "the PEM block has no matching END line")
        }
        var body: [UInt8] = []
        body.reserveCapacity(end - bodyStart)
        var padding = 0
        for byte in bytes[bodyStart..<end] where byte != 0x0A && byte != 0x0D && byte != 0x20 && byte != 0x09 {
            let mapped: UInt8
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"): mapped = byte
            case UInt8(ascii: "+"): mapped = UInt8(ascii: "-")
            case UInt8(ascii: "/"): mapped = UInt8(ascii: "_")
            case UInt8(ascii: "="):
                padding += 1
                continue
            default:
                throw JOSEError(
                    .invalidPEM,
                    "the PEM body has a character outside standard Base64 (PEM headers such as Proc-Type or DEK-Info, used by encrypted keys, are not supported)"
                )
            }
            guard padding == 0 else { throw JOSEError(.invalidPEM, "the PEM body has Base64 padding '=' before its end") }
            body.append(mapped)
        }
        guard padding <= 2, (body.count + padding) % 4 == 0 else {
            throw JOSEError(.invalidPEM, "the PEM body's Base64 is not whole 4-character groups with correct '=' padding")
        }
        do {
            return try body.withUnsafeBufferPointer { try Base64URL.decode($0) }
        } catch let error as JOSEError {
            throw JOSEError(.invalidPEM, "the PEM body is not valid Base64 (\(error.reason))")
        }
    }

    static func find(_ needle: [UInt8], in haystack: [UInt8], from: Int) -> Int? {
        guard needle.count <= haystack.count else { return nil }
        var index = from
        while index + needle.count <= haystack.count {
            if haystack[index..<index + needle.count].elementsEqual(needle) { return index }
            index += 1
        }
        return nil
    }
}
