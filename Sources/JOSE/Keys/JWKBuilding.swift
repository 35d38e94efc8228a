import CLibCrypto

/// The key builders shared by the JWK and PEM parsers: components in, a checked
/// key out, always through ``KeyBuilder`` (`EVP_PKEY_fromdata`) or libcrypto's
/// raw Ed25519 / X25519 import, with the same checks whichever format the key came in.
extension JWK {
    /// Builds the key that DER components describe.
    init(derKey: DERKey) throws {
        switch derKey {
        case .rsa(let n, let e, let d, let factors):
            self = try JWK.makeRSA(n: n, e: e, d: d, factors: factors)
        case .ec(let curve, let point?, let d):
            self = try JWK.makeEC(curve: curve, point: point, d: d)
        case .ec(_, nil, _):
            throw JOSEError(.invalidKey, "EC key without a public point")
        case .octetKeyPair(let curve, let publicKey, let privateKey):
            self = try JWK.makeOctetKeyPair(curve, publicKey: publicKey, privateKey: privateKey)
        }
    }

    /// Builds an RSA key from its components (a JWK's or a PEM's) and checks it:
    /// odd exponent above 1, odd modulus of at least 512 bits, no ROCA fingerprint,
    /// and for a private key, n = p·q.
    static func makeRSA(n: [UInt8], e: [UInt8], d: [UInt8]?, factors: RSAFactors?) throws -> JWK {
        let modulus = Array(n.drop(while: { $0 == 0 }))
        let exponent = Array(e.drop(while: { $0 == 0 }))
        guard let last = exponent.last, last & 1 == 1, exponent != [1] else {
            throw JOSEError(.invalidKey, "RSA public exponent must be odd and greater than 1", member: "e")
        }
        guard modulus.count >= 64, modulus.last.map({ $0 & 1 == 1 }) == true else {
            throw JOSEError(.invalidKey, "RSA modulus is too small or even", member: "n")
        }
        if ROCA.isVulnerable(modulus: modulus) {
            throw JOSEError(.weakKey, "RSA modulus has the ROCA fingerprint (CVE-2017-15361); the key is breakable", member: "n")
        }
        var params: [KeyBuilder.Param] = [.bigNumber("n", n), .bigNumber("e", e)]
        if let d {
            params.append(.bigNumber("d", d))
            if let factors {
                params += [
                    .bigNumber("rsa-factor1", factors.p), .bigNumber("rsa-factor2", factors.q), .bigNumber("rsa-exponent1", factors.dp),
                    .bigNumber("rsa-exponent2", factors.dq), .bigNumber("rsa-coefficient1", factors.qi),
                ]
            }
        }
        let isPrivate = d != nil
        let key = try KeyBuilder.fromData(type: "RSA", isPrivate: isPrivate, params: params)
        try KeyBuilder.check(key, isPrivate: isPrivate, what: "RSA key")
        return JWK(
            keyType: .rsa, isPrivate: isPrivate, sizeInBits: key.bits, storage: .asymmetric(key),
            publicMembers: [("e", Base64URL.encode(exponent)), ("kty", "RSA"), ("n", Base64URL.encode(modulus))])
    }

    /// Builds an EC key from its encoded public point (uncompressed, or any form
    /// libcrypto decodes) and optional private scalar, and checks it: the point
    /// is on the curve and, for a private key, matches the scalar.
    static func makeEC(curve: Curve, point: [UInt8], d: [UInt8]?) throws -> JWK {
        var params: [KeyBuilder.Param] = [.utf8("group", curve.openSSLName), .octets("pub", point)]
        if let d { params.append(.bigNumber("priv", d)) }
        let key = try KeyBuilder.fromData(type: "EC", isPrivate: d != nil, params: params)
        try KeyBuilder.check(key, isPrivate: d != nil, what: "EC key")
        let size = curve.coordinateSize
        let x: [UInt8], y: [UInt8]
        if point.count == 1 + 2 * size, point.first == 0x04 {
            x = Array(point[1...size])
            y = Array(point[(1 + size)...])
        } else {
            // Another encoding (compressed): read the coordinates back from libcrypto.
            guard let qx = KeyBuilder.bigNumber(key, "qx", size: size), let qy = KeyBuilder.bigNumber(key, "qy", size: size) else {
                throw JOSEError(.invalidKey, "EC key without a readable public point")
            }
            (x, y) = (qx, qy)
        }
        return JWK(
            keyType: .ec(curve), isPrivate: d != nil, sizeInBits: key.bits, storage: .asymmetric(key),
            publicMembers: [("crv", curve.rawValue), ("kty", "EC"), ("x", Base64URL.encode(x)), ("y", Base64URL.encode(y))])
    }

    /// Builds an Ed25519 or X25519 key from its 32-byte halves: the public half is derived
    /// from the private one when there is one, and must then equal `publicKey` if given.
    static func makeOctetKeyPair(_ curve: OctetKeyPairCurve, publicKey: [UInt8]?, privateKey: [UInt8]?) throws -> JWK {
        let key: EVPKey
        let x: [UInt8]
        if let privateKey {
            key = try makeOctetKeyPair(curve, raw: privateKey, isPrivate: true)
            guard let derived = KeyBuilder.rawKey(key, private: false) else { throw JOSEError(.invalidKey, "\(curve.rawValue) key without a public half") }
            if let publicKey, publicKey != derived {
                throw JOSEError(.invalidKey, "\(curve.rawValue) private key does not match its public key")
            }
            x = derived
        } else if let publicKey {
            key = try makeOctetKeyPair(curve, raw: publicKey, isPrivate: false)
            x = publicKey
        } else {
            throw JOSEError(.invalidKey, "\(curve.rawValue) key without a public or private half")
        }
        return JWK(
            keyType: curve.keyType, isPrivate: privateKey != nil, sizeInBits: 256, storage: .asymmetric(key),
            publicMembers: [("crv", curve.rawValue), ("kty", "OKP"), ("x", Base64URL.encode(x))])
    }

    static func makeEd25519(raw: [UInt8], isPrivate: Bool) throws -> EVPKey {
        try makeOctetKeyPair(.ed25519, raw: raw, isPrivate: isPrivate)
    }

    static func makeOctetKeyPair(_ curve: OctetKeyPairCurve, raw: [UInt8], isPrivate: Bool) throws -> EVPKey {
        let name = curve.openSSLName
        let pointer = raw.withUnsafeBufferPointer { buffer in
            isPrivate
                ? EVP_PKEY_new_raw_private_key_ex(nil, name, nil, buffer.baseAddress, buffer.count)
                : EVP_PKEY_new_raw_public_key_ex(nil, name, nil, buffer.baseAddress, buffer.count)
        }
        guard let pointer else {
            ERR_clear_error()
            throw JOSEError(.invalidKey, "libcrypto refused the \(curve.rawValue) key")
        }
        return EVPKey(taking: pointer)
    }
}

/// The `OKP` curves (RFC 8037) this library builds keys for.
enum OctetKeyPairCurve: String {
    /// Ed25519 signatures (EdDSA).
    case ed25519 = "Ed25519"
    /// X25519 key agreement (JWE ECDH-ES).
    case x25519 = "X25519"

    var keyType: JWK.KeyType { self == .ed25519 ? .ed25519 : .x25519 }
    var openSSLName: String { self == .ed25519 ? "ED25519" : "X25519" }
}
