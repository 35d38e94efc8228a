/// Object identifiers of key algorithms and curves (DER contents, compared as bytes).
enum OID {
    static let rsaEncryption: [UInt8] = [0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D, 0x01, 0x01, 0x01]
    static let ecPublicKey: [UInt8] = [0x2A, 0x86, 0x48, 0xCE, 0x3D, 0x02, 0x01]
    static let ed25519: [UInt8] = [0x2B, 0x65, 0x70]
    static let x25519: [UInt8] = [0x2B, 0x65, 0x6E]
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
