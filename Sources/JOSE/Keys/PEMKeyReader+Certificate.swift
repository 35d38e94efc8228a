/// X.509 certificates, read down to their subject public key.
extension PEMKeyReader {
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
                field.tag & 0x20 == (number == 3 ? 0x20 : 0)
            else {
                throw DER.malformed("unexpected field \(DER.hex(field.tag)) after the certificate subjectPublicKeyInfo", at: field.offset)
            }
            last = number
        }
        return key
    }
}
