/// The limits on a key taken from a token or a proof rather than from the application's
/// configuration or an issuer's key set: a DPoP proof's `jwk` header, a JWE's `epk`, any key a
/// remote party embeds. Whoever sends such a key chooses it, so it must not make a check costlier
/// than an honest key does: an RSA public exponent of thousands of bits makes one signature check
/// cost about 60 times an honest one.
///
/// One rule, applied by ``JWK/init(embeddedJSONObject:)`` on the raw members before any key is built:
/// - RSA `e` at most 2^32 (``maximumRSAPublicExponent``; 65537 is the value to use),
/// - RSA `n` at most 8192 bits (``maximumRSAModulusBits``).
///
/// Other key types have fixed sizes per curve and need no limit here.
public enum EmbeddedKeyLimits {
    /// The largest RSA public exponent accepted in an embedded key: 2^32.
    public static let maximumRSAPublicExponent: UInt64 = 1 << 32
    /// The largest RSA modulus accepted in an embedded key, in bits: 8192.
    public static let maximumRSAModulusBits = 8192

    /// Checks an RSA key's big-endian `n` and `e` against the limits.
    /// - Throws: ``JOSEError`` `.embeddedKeyTooCostly`, naming the member.
    static func checkRSA(modulus n: [UInt8], exponent e: [UInt8]) throws {
        let exponent = e.drop { $0 == 0 }
        guard exponent.count <= 8 else {
            throw JOSEError(
                .embeddedKeyTooCostly, "the embedded RSA key's public exponent has \(bitLength(exponent)) bits; at most 2^32 is accepted", member: "e")
        }
        let value = exponent.reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        guard value <= maximumRSAPublicExponent else {
            throw JOSEError(.embeddedKeyTooCostly, "the embedded RSA key's public exponent is above 2^32", member: "e")
        }
        let modulusBits = bitLength(n.drop { $0 == 0 })
        guard modulusBits <= maximumRSAModulusBits else {
            throw JOSEError(
                .embeddedKeyTooCostly, "the embedded RSA key's modulus has \(modulusBits) bits; at most \(maximumRSAModulusBits) are accepted", member: "n")
        }
    }

    /// The bit length of a big-endian number without leading zero bytes.
    static func bitLength(_ bytes: ArraySlice<UInt8>) -> Int {
        guard let first = bytes.first else { return 0 }
        return (bytes.count - 1) * 8 + (8 - first.leadingZeroBitCount)
    }
}

extension JWK {
    /// Parses a key embedded in a token or a proof (a DPoP `jwk`, a JWE `epk`): ``init(jsonObject:)``
    /// with ``EmbeddedKeyLimits`` checked on the decoded members before any key is built.
    /// - Throws: ``JOSEError``: `.embeddedKeyTooCostly`, and the errors of ``init(jsonObject:)``.
    public init(embeddedJSONObject object: JSONObject) throws {
        try self.init(jsonObject: object, embedded: true)  // the limits checked on n and e as the parser decodes them, once
    }
}
