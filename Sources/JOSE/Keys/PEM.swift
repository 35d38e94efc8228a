import CLibCrypto

extension JWK {
    /// Parses the first key in PEM text: a SubjectPublicKeyInfo public key
    /// (`PUBLIC KEY`), a PKCS#8 (`PRIVATE KEY`), PKCS#1 (`RSA PRIVATE KEY`) or
    /// SEC1 (`EC PRIVATE KEY`) private key, or an X.509 certificate
    /// (`CERTIFICATE`, whose subject public key is used).
    /// Encrypted private keys are refused rather than prompting for a passphrase.
    /// - Throws: ``JOSEError`` `.invalidPEM`, `.invalidKey`, `.unsupportedKey`.
    public init(pem: String) throws {
        guard let label = PEMBlock.firstLabel(in: pem) else {
            throw JOSEError(.invalidPEM, "no \"-----BEGIN ...-----\" block found")
        }
        let key: EVPKey
        let isPrivate: Bool
        switch label {
        case "PUBLIC KEY":
            // DER through d2i_PUBKEY: several times cheaper than PEM_read_bio_PUBKEY,
            // which builds OpenSSL 3's whole decoder chain for one key.
            if let der = PEMBlock.der(of: pem, label: label) {
                key = try PEMBlock.decodePublicKey(der)
            } else {
                key = try PEMBlock.read(pem, what: "public key") { bio in PEM_read_bio_PUBKEY(bio, nil, nil, nil) }
            }
            isPrivate = false
        case "PRIVATE KEY", "RSA PRIVATE KEY", "EC PRIVATE KEY":
            key = try PEMBlock.read(pem, what: "private key") { bio in
                PEM_read_bio_PrivateKey(bio, nil, { _, _, _, _ in 0 }, nil)
            }
            isPrivate = true
        case "CERTIFICATE":
            key = try PEMBlock.read(pem, what: "certificate") { bio in
                guard let certificate = PEM_read_bio_X509(bio, nil, nil, nil) else { return nil }
                defer { X509_free(certificate) }
                return X509_get_pubkey(certificate)
            }
            isPrivate = false
        case "ENCRYPTED PRIVATE KEY":
            throw JOSEError(.unsupportedKey, "encrypted private keys are not supported; decrypt it first (openssl pkey -in KEY -out PLAIN)")
        default:
            throw JOSEError(.invalidPEM, "PEM block \"\(label.jsonSafePrefix)\" is not a key or certificate")
        }
        self = try JWK(evpKey: key, isPrivate: isPrivate)
    }

    /// Wraps a loaded `EVP_PKEY`, reading back its public components and checking it.
    init(evpKey key: EVPKey, isPrivate: Bool) throws {
        if EVP_PKEY_is_a(key.pointer, "RSA") == 1 {
            guard let n = KeyBuilder.bigNumber(key, "n"), let e = KeyBuilder.bigNumber(key, "e") else {
                throw JOSEError(.invalidKey, "RSA key without readable modulus or exponent")
            }
            guard e.last.map({ $0 & 1 == 1 }) == true, e.drop(while: { $0 == 0 }) != [1] else {
                throw JOSEError(.invalidKey, "RSA public exponent must be odd and greater than 1")
            }
            if ROCA.isVulnerable(modulus: n) {
                throw JOSEError(.weakKey, "RSA modulus has the ROCA fingerprint (CVE-2017-15361); the key is breakable")
            }
            try KeyBuilder.check(key, isPrivate: isPrivate, what: "RSA key")
            self.init(keyType: .rsa, isPrivate: isPrivate, sizeInBits: key.bits, storage: .asymmetric(key),
                      publicMembers: [("e", Base64URL.encode(e)), ("kty", "RSA"), ("n", Base64URL.encode(n))])
        } else if EVP_PKEY_is_a(key.pointer, "EC") == 1 {
            let group = KeyBuilder.utf8(key, "group") ?? "?"
            guard let curve = Curve.allCases.first(where: { $0.openSSLName == group }) else {
                throw JOSEError(.unsupportedKey, "EC curve \"\(group.jsonSafePrefix)\" is not supported")
            }
            let size = curve.coordinateSize
            guard let x = KeyBuilder.bigNumber(key, "qx", size: size), let y = KeyBuilder.bigNumber(key, "qy", size: size) else {
                throw JOSEError(.invalidKey, "EC key without a readable public point")
            }
            try KeyBuilder.check(key, isPrivate: isPrivate, what: "EC key")
            self.init(keyType: .ec(curve), isPrivate: isPrivate, sizeInBits: key.bits, storage: .asymmetric(key),
                      publicMembers: [("crv", curve.rawValue), ("kty", "EC"), ("x", Base64URL.encode(x)), ("y", Base64URL.encode(y))])
        } else if EVP_PKEY_is_a(key.pointer, "ED25519") == 1 {
            guard let x = KeyBuilder.rawKey(key, private: false) else { throw JOSEError(.invalidKey, "Ed25519 key without a public half") }
            self.init(keyType: .ed25519, isPrivate: isPrivate, sizeInBits: 256, storage: .asymmetric(key),
                      publicMembers: [("crv", "Ed25519"), ("kty", "OKP"), ("x", Base64URL.encode(x))])
        } else {
            throw JOSEError(.unsupportedKey, "the PEM key is of a type this library does not support")
        }
    }
}

enum PEMBlock {
    static func firstLabel(in text: String) -> String? {
        let bytes = Array(text.utf8)
        let begin = Array("-----BEGIN ".utf8)
        guard let start = find(begin, in: bytes, from: 0) else { return nil }
        let labelStart = start + begin.count
        guard let end = find(Array("-----".utf8), in: bytes, from: labelStart) else { return nil }
        return String(decoding: bytes[labelStart..<end], as: UTF8.self)
    }

    /// The DER bytes of the first block labelled `label`, or `nil` when the body is not plain Base64.
    static func der(of text: String, label: String) -> [UInt8]? {
        let bytes = Array(text.utf8)
        guard let begin = find(Array("-----BEGIN \(label)-----".utf8), in: bytes, from: 0) else { return nil }
        let bodyStart = begin + "-----BEGIN \(label)-----".utf8.count
        guard let end = find(Array("-----END \(label)-----".utf8), in: bytes, from: bodyStart) else { return nil }
        var body: [UInt8] = []
        for byte in bytes[bodyStart..<end] where byte != 0x0A && byte != 0x0D && byte != 0x20 && byte != 0x09 {
            switch byte {
            case UInt8(ascii: "+"): body.append(UInt8(ascii: "-"))
            case UInt8(ascii: "/"): body.append(UInt8(ascii: "_"))
            case UInt8(ascii: "="): continue
            default: body.append(byte)
            }
        }
        return body.withUnsafeBufferPointer { try? Base64URL.decode($0) }
    }

    static func decodePublicKey(_ der: [UInt8]) throws -> EVPKey {
        let pointer: OpaquePointer? = der.withUnsafeBufferPointer { buffer in
            var cursor = buffer.baseAddress
            return d2i_PUBKEY(nil, &cursor, buffer.count)
        }
        guard let pointer else {
            ERR_clear_error()
            throw JOSEError(.invalidPEM, "the PEM public key could not be decoded")
        }
        return EVPKey(taking: pointer)
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

    static func read(_ pem: String, what: String, _ load: (OpaquePointer) -> OpaquePointer?) throws -> EVPKey {
        let bytes = Array(pem.utf8)
        let pointer: OpaquePointer? = bytes.withUnsafeBytes { raw in
            guard let bio = BIO_new_mem_buf(raw.baseAddress, Int32(raw.count)) else { return nil }
            defer { BIO_free(bio) }
            return load(bio)
        }
        guard let pointer else {
            ERR_clear_error()
            throw JOSEError(.invalidPEM, "the PEM \(what) could not be decoded")
        }
        return EVPKey(taking: pointer)
    }
}
