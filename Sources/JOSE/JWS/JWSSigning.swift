extension CompactJWS {
    /// Signs `payload` and returns a compact JWS.
    ///
    /// The header gets `alg` (and `kid` from the key when it has one and the
    /// header does not); other members are copied from `header`.
    /// - Throws: ``JOSEError`` when the key cannot sign with `algorithm`.
    public static func sign(payload: [UInt8], header: JSONObject = JSONObject(), key: JWK,
                            algorithm: JWSAlgorithm, policy: JWSVerificationPolicy = .default) throws -> String {
        guard key.isPrivate else { throw JOSEError(.invalidKey, "signing needs a private or secret key") }
        guard key.admittedAlgorithms.contains(algorithm) else {
            throw JOSEError(.keyAlgorithmMismatch, "an \(key.keyType) key cannot sign with \(algorithm)", member: "alg")
        }
        guard key.permits(operation: "sign") else {
            throw JOSEError(.keyUsageNotPermitted, "the key's use/key_ops do not permit signing")
        }
        try policy.checkStrength(of: key, for: algorithm)
        var members = JSONObject()
        members["alg"] = .string(algorithm.rawValue)
        if let keyID = key.keyID, header["kid"] == nil { members["kid"] = .string(keyID) }
        for member in header where member.name != "alg" { members[member.name] = member.value }
        let unencoded = members["b64"]?.boolValue == false
        var input = Array(Base64URL.encode(Array(members.jsonString().utf8)).utf8)
        input.append(UInt8(ascii: "."))
        input += unencoded ? payload : Array(Base64URL.encode(payload).utf8)
        let signature = try Signer.sign(input: input, key: key, algorithm: algorithm)
        return String(decoding: input, as: UTF8.self) + "." + Base64URL.encode(signature)
    }

    /// Signs a UTF-8 string payload.
    public static func sign(payload: String, header: JSONObject = JSONObject(), key: JWK, algorithm: JWSAlgorithm) throws -> String {
        try sign(payload: Array(payload.utf8), header: header, key: key, algorithm: algorithm)
    }
}
