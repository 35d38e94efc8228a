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

/// Reads SubjectPublicKeyInfo, PKCS#8, PKCS#1, SEC1 and X.509 DER into ``DERKey``
/// with a strict ``DERReader``. Nothing here touches libcrypto.
enum PEMKeyReader {
    /// The supported key algorithms of an AlgorithmIdentifier.
    enum Algorithm: Equatable {
        case rsa
        case ec(JWK.Curve)
        /// Ed25519 or X25519 (RFC 8410): parameters absent, raw 32-byte halves.
        case octetKeyPair(OctetKeyPairCurve)
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
        case .octetKeyPair(let curve):
            guard bits.count == 32 else { throw JOSEError(.invalidKey, "an \(curve.rawValue) public key must be 32 bytes, not \(bits.count)") }
            return .octetKeyPair(curve, publicKey: Array(bits), privateKey: nil)
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
    /// id-ecPublicKey with a named curve, or Ed25519 / X25519 (parameters absent, RFC 8410 §3).
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
            algorithm = .octetKeyPair(.ed25519)
        } else if oid.elementsEqual(OID.x25519) {
            algorithm = .octetKeyPair(.x25519)
        } else {
            throw JOSEError(
                .unsupportedKey, "key algorithm \(OID.name(oid)) is not supported (RSA rsaEncryption, EC P-256/P-384/P-521, Ed25519 and X25519 are)")
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
