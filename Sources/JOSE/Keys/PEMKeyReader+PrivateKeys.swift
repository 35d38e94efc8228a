/// PKCS#8, PKCS#1 and SEC1 private key structures.
extension PEMKeyReader {
    /// PKCS#8 PrivateKeyInfo (version 0) or OneAsymmetricKey (version 1, RFC 5958),
    /// with optional attributes [0] and, in version 1 only, an optional publicKey [1].
    static func privateKeyInfo(_ body: ArraySlice<UInt8>) throws -> DERKey {
        var reader = DERReader(body)
        let version = try DER.smallInteger(reader.read(DER.integer, "the PKCS#8 version"), "the PKCS#8 version")
        guard let version, version <= 1 else { throw JOSEError(.unsupportedKey, "PKCS#8 versions other than 0 and 1 are not supported") }
        let algorithm = try algorithmIdentifier(reader.read(DER.sequence, "the PKCS#8 privateKeyAlgorithm"))
        let inner = try reader.read(DER.octetString, "the PKCS#8 privateKey")
        if let attributes = try reader.readIfPresent(DER.contextConstructed(0), "the PKCS#8 attributes") {
            try checkAttributes(attributes)
        }
        let publicKey = try reader.readIfPresent(DER.contextPrimitive(1), "the OneAsymmetricKey publicKey")
            .map { try DER.keyBits($0, "the OneAsymmetricKey publicKey") }
        if publicKey != nil, version == 0 { throw DER.malformed("a version 0 PKCS#8 key carries a publicKey [1] (that needs version 1)", at: body.startIndex) }
        try reader.expectEnd("the PKCS#8 PrivateKeyInfo")

        switch algorithm {
        case .rsa:
            var outer = DERReader(inner)
            let key = try rsaPrivateKey(outer.read(DER.sequence, "the RSAPrivateKey"))
            try outer.expectEnd("the PKCS#8 privateKey (one RSAPrivateKey)")
            if let publicKey, case .rsa(let n, let e, _, _) = key {
                let stated = try rsaPublicKey(publicKey)
                guard stated.n == n, stated.e == e else { throw JOSEError(.invalidKey, "the PKCS#8 publicKey does not match the RSA private key") }
            }
            return key
        case .ec(let curve):
            var outer = DERReader(inner)
            let key = try ecPrivateKey(outer.read(DER.sequence, "the ECPrivateKey"), curve: curve)
            try outer.expectEnd("the PKCS#8 privateKey (one ECPrivateKey)")
            guard let publicKey, case .ec(_, let point, let d) = key else { return key }
            if let point, !point.elementsEqual(publicKey) {
                throw JOSEError(.invalidKey, "the PKCS#8 publicKey differs from the ECPrivateKey's public key")
            }
            return .ec(curve, point: Array(publicKey), d: d)
        case .octetKeyPair(let curve):
            // CurvePrivateKey ::= OCTET STRING (RFC 8410 §7), inside the privateKey OCTET STRING.
            var outer = DERReader(inner)
            let privateKey = try outer.read(DER.octetString, "the \(curve.rawValue) CurvePrivateKey")
            try outer.expectEnd("the PKCS#8 privateKey (one CurvePrivateKey)")
            guard privateKey.count == 32 else { throw JOSEError(.invalidKey, "an \(curve.rawValue) private key must be 32 bytes, not \(privateKey.count)") }
            if let publicKey, publicKey.count != 32 {
                throw JOSEError(.invalidKey, "an \(curve.rawValue) public key must be 32 bytes, not \(publicKey.count)")
            }
            return .octetKeyPair(curve, publicKey: publicKey.map(Array.init), privateKey: Array(privateKey))
        }
    }

    /// `[0] IMPLICIT SET OF Attribute`, where Attribute is `SEQUENCE { OID, SET OF ANY }`:
    /// checked for shape only (their values are not used).
    static func checkAttributes(_ contents: ArraySlice<UInt8>) throws {
        var attributes = DERReader(contents)
        while !attributes.isAtEnd {
            var attribute = DERReader(try attributes.read(DER.sequence, "a PKCS#8 attribute"))
            _ = try attribute.read(DER.objectIdentifier, "a PKCS#8 attribute type")
            var values = DERReader(try attribute.read(DER.set, "a PKCS#8 attribute's values"))
            try attribute.expectEnd("a PKCS#8 attribute")
            while !values.isAtEnd { _ = try values.read("a PKCS#8 attribute value") }
        }
    }

    /// PKCS#1 RSAPrivateKey, two-prime (version 0) only.
    static func rsaPrivateKey(_ body: ArraySlice<UInt8>) throws -> DERKey {
        var reader = DERReader(body)
        switch try DER.smallInteger(reader.read(DER.integer, "the RSAPrivateKey version"), "the RSAPrivateKey version") {
        case 0: break
        case 1: throw JOSEError(.unsupportedKey, "multi-prime RSA private keys (RSAPrivateKey version 1) are not supported")
        default: throw JOSEError(.unsupportedKey, "RSAPrivateKey versions other than 0 are not supported")
        }
        let names = ["modulus", "public exponent", "private exponent", "prime1", "prime2", "exponent1", "exponent2", "coefficient"]
        let values = try names.map { try DER.positiveInteger(reader.read(DER.integer, "the RSA \($0)"), "the RSA \($0)") }
        try reader.expectEnd("the RSAPrivateKey")
        return .rsa(
            n: values[0], e: values[1], d: values[2],
            factors: RSAFactors(p: values[3], q: values[4], dp: values[5], dq: values[6], qi: values[7]))
    }

    /// SEC1 ECPrivateKey (version 1). `curve` is the PKCS#8 AlgorithmIdentifier's
    /// curve; without one (an `EC PRIVATE KEY` block) the parameters [0] are required,
    /// and with one they must agree when present.
    static func ecPrivateKey(_ body: ArraySlice<UInt8>, curve outerCurve: JWK.Curve?) throws -> DERKey {
        var reader = DERReader(body)
        guard try DER.smallInteger(reader.read(DER.integer, "the ECPrivateKey version"), "the ECPrivateKey version") == 1 else {
            throw JOSEError(.unsupportedKey, "ECPrivateKey versions other than 1 are not supported")
        }
        let scalar = try reader.read(DER.octetString, "the EC private key")
        var curve = outerCurve
        if let parameters = try reader.readIfPresent(DER.contextConstructed(0), "the ECPrivateKey parameters") {
            var inner = DERReader(parameters)
            let named = try namedCurve(inner.read("the ECPrivateKey parameters"))
            try inner.expectEnd("the ECPrivateKey parameters")
            if let outerCurve, outerCurve != named {
                throw JOSEError(.invalidKey, "the ECPrivateKey names curve \(named.rawValue) but its AlgorithmIdentifier names \(outerCurve.rawValue)")
            }
            curve = named
        }
        var point: [UInt8]? = nil
        if let publicKey = try reader.readIfPresent(DER.contextConstructed(1), "the ECPrivateKey publicKey") {
            var inner = DERReader(publicKey)
            point = Array(try DER.keyBits(inner.read(DER.bitString, "the ECPrivateKey publicKey"), "the ECPrivateKey publicKey"))
            try inner.expectEnd("the ECPrivateKey publicKey")
        }
        try reader.expectEnd("the ECPrivateKey")
        guard let curve else { throw JOSEError(.invalidKey, "the EC PRIVATE KEY names no curve (its parameters [0] are missing)") }
        // SEC1 writes the scalar at the curve's size; some old encoders dropped leading zeros.
        guard !scalar.isEmpty, scalar.count <= curve.coordinateSize else {
            throw JOSEError(.invalidKey, "the EC private key is \(scalar.count) bytes; \(curve.rawValue) needs at most \(curve.coordinateSize)")
        }
        return .ec(curve, point: point, d: Array(scalar))
    }
}
