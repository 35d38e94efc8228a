import CLibCrypto

extension JWK {
    /// The private JWK as a JSON object: the public members, the private ones
    /// (`d`; for RSA also `p`, `q`, `dp`, `dq`, `qi`; `k` for `oct`) and `kid`,
    /// `use`, `alg`, `key_ops`.
    ///
    /// Key material leaves the key only through this call and ``privateKeyPEM()``;
    /// the result is for a key file, never for a log.
    /// - Throws: ``JOSEError`` `.invalidKey` for a public key, `.cryptoFailure`
    ///   when libcrypto cannot give the components back.
    public func privateJWK() throws -> JSONObject {
        guard isPrivate else { throw JOSEError(.invalidKey, "a public key has no private JWK") }
        var object = publicJWK
        switch storage {
        case .symmetric(let secret):
            object["k"] = .string(Base64URL.encode(secret.exposedCopy))
        case .asymmetric(let key):
            for (name, value) in try JWK.privateMembers(of: key, type: keyType) { object[name] = .string(value) }
        case .unavailable:
            try MLDSA.requireAvailable("exporting an \(keyType) private key")
        }
        return object
    }

    /// The private JWK as compact JSON text (see ``privateJWK()``).
    public func privateJWKString() throws -> String { try privateJWK().jsonString() }

    /// The private members of an asymmetric key, read back from libcrypto.
    private static func privateMembers(of key: EVPKey, type: KeyType) throws -> [(String, String)] {
        func read(_ name: String, size: Int? = nil) throws -> String {
            guard let bytes = KeyBuilder.bigNumber(key, name, size: size) else { throw cryptoFailure("read a private key component") }
            return Base64URL.encode(bytes)
        }
        switch type {
        case .ec(let curve):
            return [("d", try read("priv", size: curve.coordinateSize))]
        case .ed25519, .x25519:
            guard let raw = KeyBuilder.rawKey(key, private: true) else { throw cryptoFailure("read the \(type) private key") }
            return [("d", Base64URL.encode(raw))]
        case .rsa:
            var members = [("d", try read("d"))]
            // Keys imported without their CRT parameters export `d` alone (RFC 7518 §6.3.2 allows it).
            if KeyBuilder.bigNumber(key, "rsa-factor1") != nil {
                members += [
                    ("p", try read("rsa-factor1")), ("q", try read("rsa-factor2")), ("dp", try read("rsa-exponent1")),
                    ("dq", try read("rsa-exponent2")), ("qi", try read("rsa-coefficient1")),
                ]
            }
            return members
        case .oct:
            return []
        case .mlDSA:
            return [("priv", Base64URL.encode(try MLDSA.seed(of: key)))]
        }
    }
}
