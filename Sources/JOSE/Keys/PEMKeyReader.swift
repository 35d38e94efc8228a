/// The DER structures a PEM key block can hold, named by its label.
enum PEMKeyFormat: Sendable, CaseIterable {
    /// `PUBLIC KEY`: SubjectPublicKeyInfo (RFC 5280 §4.1.2.7).
    case publicKey
    /// `PRIVATE KEY`: PKCS#8 PrivateKeyInfo / OneAsymmetricKey (RFC 5958).
    case privateKey
    /// `RSA PRIVATE KEY`: PKCS#1 RSAPrivateKey (RFC 8017 §A.1.2).
    case rsaPrivateKey
    /// `EC PRIVATE KEY`: SEC1 ECPrivateKey (RFC 5915).
    case ecPrivateKey
    /// `CERTIFICATE`: X.509 (RFC 5280); only its subject public key is read.
    case certificate

    init?(label: String) {
        switch label {
        case "PUBLIC KEY": self = .publicKey
        case "PRIVATE KEY": self = .privateKey
        case "RSA PRIVATE KEY": self = .rsaPrivateKey
        case "EC PRIVATE KEY": self = .ecPrivateKey
        case "CERTIFICATE": self = .certificate
        default: return nil
        }
    }

    var isPrivate: Bool { self == .privateKey || self == .rsaPrivateKey || self == .ecPrivateKey }
}

/// Key components read from DER, before libcrypto sees them. Integers are
/// unsigned big-endian magnitudes; the EC point is the encoded point as stored.
enum DERKey {
    case rsa(n: [UInt8], e: [UInt8], d: [UInt8]?, factors: RSAFactors?)
    case ec(JWK.Curve, point: [UInt8]?, d: [UInt8]?)
    case ed25519(publicKey: [UInt8]?, privateKey: [UInt8]?)
}

/// The CRT members of a two-prime RSA private key: p, q, dp, dq, qi
/// (PKCS#1 prime1, prime2, exponent1, exponent2, coefficient).
struct RSAFactors {
    let p: [UInt8], q: [UInt8], dp: [UInt8], dq: [UInt8], qi: [UInt8]
}

/// Reads SubjectPublicKeyInfo, PKCS#8, PKCS#1, SEC1 and X.509 DER into ``DERKey``
/// with a strict ``DERReader``. Nothing here touches libcrypto.
enum PEMKeyReader {
    /// The supported key algorithms of an AlgorithmIdentifier.
    enum Algorithm: Equatable {
        case rsa
        case ec(JWK.Curve)
        case ed25519
    }

    static func read(_ der: [UInt8], format: PEMKeyFormat) throws -> DERKey {
        var outer = DERReader(der[...])
        let body = try outer.read(DER.sequence, format.structureName)
        try outer.expectEnd("the DER input (one \(format.structureName))")
        switch format {
        case .publicKey: return try subjectPublicKeyInfo(body)
        case .privateKey: return try privateKeyInfo(body)
        case .rsaPrivateKey: return try rsaPrivateKey(body)
        case .ecPrivateKey: return try ecPrivateKey(body, curve: nil)
        case .certificate: return try certificate(body)
        }
    }

    // MARK: Public keys

    static func subjectPublicKeyInfo(_ body: ArraySlice<UInt8>) throws -> DERKey {
        var reader = DERReader(body)
        let algorithm = try algorithmIdentifier(reader.read(DER.sequence, "the SubjectPublicKeyInfo algorithm"))
        let bits = try DER.keyBits(reader.read(DER.bitString, "the subjectPublicKey"), "the subjectPublicKey")
        try reader.expectEnd("the SubjectPublicKeyInfo")
        switch algorithm {
        case .rsa:
            let (n, e) = try rsaPublicKey(bits)
            return .rsa(n: n, e: e, d: nil, factors: nil)
        case .ec(let curve):
            return .ec(curve, point: Array(bits), d: nil)
        case .ed25519:
            guard bits.count == 32 else { throw JOSEError(.invalidKey, "an Ed25519 public key must be 32 bytes, not \(bits.count)") }
            return .ed25519(publicKey: Array(bits), privateKey: nil)
        }
    }

    /// PKCS#1 RSAPublicKey (the subjectPublicKey of an rsaEncryption key).
    static func rsaPublicKey(_ der: ArraySlice<UInt8>) throws -> (n: [UInt8], e: [UInt8]) {
        var outer = DERReader(der)
        var reader = DERReader(try outer.read(DER.sequence, "the RSAPublicKey"))
        try outer.expectEnd("the RSA subjectPublicKey (one RSAPublicKey)")
        let n = try DER.positiveInteger(reader.read(DER.integer, "the RSA modulus"), "the RSA modulus")
        let e = try DER.positiveInteger(reader.read(DER.integer, "the RSA public exponent"), "the RSA public exponent")
        try reader.expectEnd("the RSAPublicKey")
        return (n, e)
    }

    /// An AlgorithmIdentifier of a key: rsaEncryption (parameters NULL or absent),
    /// id-ecPublicKey with a named curve, or Ed25519 (parameters absent).
    static func algorithmIdentifier(_ body: ArraySlice<UInt8>) throws -> Algorithm {
        var reader = DERReader(body)
        let oid = try reader.read(DER.objectIdentifier, "the key algorithm OID")
        let algorithm: Algorithm
        if oid.elementsEqual(OID.rsaEncryption) {
            if let parameters = try reader.readIfPresent(DER.null, "the rsaEncryption parameters") {
                try DER.null(parameters, "the rsaEncryption parameters")
            }
            algorithm = .rsa
        } else if oid.elementsEqual(OID.ecPublicKey) {
            algorithm = .ec(try namedCurve(reader.read("the id-ecPublicKey parameters (the curve)")))
        } else if oid.elementsEqual(OID.ed25519) {
            algorithm = .ed25519
        } else {
            throw JOSEError(.unsupportedKey, "key algorithm \(OID.name(oid)) is not supported (RSA rsaEncryption, EC P-256/P-384/P-521 and Ed25519 are)")
        }
        try reader.expectEnd("the key AlgorithmIdentifier (\(OID.name(oid)) parameters)")
        return algorithm
    }

    /// ECParameters: only the namedCurve choice, for the three JOSE curves.
    static func namedCurve(_ parameters: DERReader.Element) throws -> JWK.Curve {
        switch parameters.tag {
        case DER.objectIdentifier:
            guard let curve = JWK.Curve.allCases.first(where: { parameters.contents.elementsEqual($0.objectIdentifier) }) else {
                throw JOSEError(.unsupportedKey, "EC curve \(OID.name(parameters.contents)) is not supported (P-256, P-384 and P-521 are)")
            }
            return curve
        case DER.sequence:
            throw JOSEError(.unsupportedKey, "EC keys with explicit curve parameters are not supported; use a named curve")
        case DER.null:
            throw JOSEError(.unsupportedKey, "EC keys with implicitly-CA curve parameters are not supported; use a named curve")
        default:
            throw DER.malformed("the EC curve parameters are neither a named curve nor explicit parameters", at: parameters.offset)
        }
    }

    // MARK: Private keys

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
        case .ed25519:
            // CurvePrivateKey ::= OCTET STRING (RFC 8410 §7), inside the privateKey OCTET STRING.
            var outer = DERReader(inner)
            let privateKey = try outer.read(DER.octetString, "the Ed25519 CurvePrivateKey")
            try outer.expectEnd("the PKCS#8 privateKey (one CurvePrivateKey)")
            guard privateKey.count == 32 else { throw JOSEError(.invalidKey, "an Ed25519 private key must be 32 bytes, not \(privateKey.count)") }
            if let publicKey, publicKey.count != 32 {
                throw JOSEError(.invalidKey, "an Ed25519 public key must be 32 bytes, not \(publicKey.count)")
            }
            return .ed25519(publicKey: publicKey.map(Array.init), privateKey: Array(privateKey))
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
        return .rsa(n: values[0], e: values[1], d: values[2],
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

    // MARK: Certificates

    /// X.509 Certificate: checks the outer shape and the TBSCertificate fields up to
    /// subjectPublicKeyInfo, which it reads as a `PUBLIC KEY`. Names, validity and
    /// extensions are only checked for DER framing: the certificate is not validated.
    static func certificate(_ body: ArraySlice<UInt8>) throws -> DERKey {
        var reader = DERReader(body)
        var tbs = DERReader(try reader.read(DER.sequence, "the tbsCertificate"))
        _ = try reader.read(DER.sequence, "the certificate signatureAlgorithm")
        _ = try reader.read(DER.bitString, "the certificate signatureValue")
        try reader.expectEnd("the Certificate")

        if let version = try tbs.readIfPresent(DER.contextConstructed(0), "the certificate version") {
            var inner = DERReader(version)
            guard let number = try DER.smallInteger(inner.read(DER.integer, "the certificate version"), "the certificate version"), number <= 2 else {
                throw JOSEError(.unsupportedKey, "X.509 versions other than v1, v2 and v3 are not supported")
            }
            try inner.expectEnd("the certificate version")
        }
        _ = try DER.integer(tbs.read(DER.integer, "the certificate serialNumber"), "the certificate serialNumber")
        for field in ["signature", "issuer", "validity", "subject"] {
            _ = try tbs.read(DER.sequence, "the certificate \(field)")
        }
        let key = try subjectPublicKeyInfo(tbs.read(DER.sequence, "the certificate subjectPublicKeyInfo"))
        // issuerUniqueID [1], subjectUniqueID [2], extensions [3]: each at most once, in order.
        var last: UInt8 = 0
        while !tbs.isAtEnd {
            let field = try tbs.read("a certificate issuerUniqueID, subjectUniqueID or extensions field")
            let number = field.tag & 0x1F
            guard field.tag & 0xC0 == 0x80, (1...3).contains(number), number > last,
                  field.tag & 0x20 == (number == 3 ? 0x20 : 0) else {
                throw DER.malformed("unexpected field \(DER.hex(field.tag)) after the certificate subjectPublicKeyInfo", at: field.offset)
            }
            last = number
        }
        return key
    }
}

extension PEMKeyFormat {
    /// The ASN.1 structure's name, for error messages.
    var structureName: String {
        switch self {
        case .publicKey: return "SubjectPublicKeyInfo"
        case .privateKey: return "PKCS#8 PrivateKeyInfo"
        case .rsaPrivateKey: return "PKCS#1 RSAPrivateKey"
        case .ecPrivateKey: return "SEC1 ECPrivateKey"
        case .certificate: return "X.509 Certificate"
        }
    }
}

/// Object identifiers of key algorithms and curves (DER contents, compared as bytes).
enum OID {
    static let rsaEncryption: [UInt8] = [0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D, 0x01, 0x01, 0x01]
    static let ecPublicKey: [UInt8] = [0x2A, 0x86, 0x48, 0xCE, 0x3D, 0x02, 0x01]
    static let ed25519: [UInt8] = [0x2B, 0x65, 0x70]
    static let prime256v1: [UInt8] = [0x2A, 0x86, 0x48, 0xCE, 0x3D, 0x03, 0x01, 0x07]
    static let secp384r1: [UInt8] = [0x2B, 0x81, 0x04, 0x00, 0x22]
    static let secp521r1: [UInt8] = [0x2B, 0x81, 0x04, 0x00, 0x23]

    /// Names some well-known unsupported OIDs in error messages.
    static let known: [(oid: [UInt8], name: String)] = [
        ([0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D, 0x01, 0x01, 0x0A], "RSASSA-PSS"),
        ([0x2A, 0x86, 0x48, 0xCE, 0x38, 0x04, 0x01], "DSA"),
        ([0x2A, 0x86, 0x48, 0xCE, 0x3E, 0x02, 0x01], "DH"),
        ([0x2B, 0x65, 0x6E], "X25519"), ([0x2B, 0x65, 0x6F], "X448"), ([0x2B, 0x65, 0x71], "Ed448"),
        ([0x2B, 0x81, 0x04, 0x00, 0x0A], "secp256k1"),
    ]

    static func name(_ oid: ArraySlice<UInt8>) -> String {
        let dotted = DER.dotted(oid)
        guard let known = known.first(where: { oid.elementsEqual($0.oid) }) else { return dotted }
        return "\(known.name) (\(dotted))"
    }
}

extension JWK.Curve {
    /// The namedCurve OBJECT IDENTIFIER contents.
    var objectIdentifier: [UInt8] {
        switch self {
        case .p256: return OID.prime256v1
        case .p384: return OID.secp384r1
        case .p521: return OID.secp521r1
        }
    }
}
