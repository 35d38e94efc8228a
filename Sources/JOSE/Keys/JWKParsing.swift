extension JWK {
    /// Parses a JWK from JSON text.
    /// - Throws: ``JOSEError``: `.invalidJSON`, `.invalidKey`, `.unsupportedKey`, `.weakKey` (ROCA).
    public init(json: String, limits: JSONLimits = .default) throws {
        try self.init(jsonBytes: Array(json.utf8), limits: limits)
    }

    /// Parses a JWK from JSON bytes.
    public init(jsonBytes: [UInt8], limits: JSONLimits = .default) throws {
        try self.init(jsonObject: JSONParser.parseObject(jsonBytes, limits: limits, what: "the JWK"))
    }

    /// Parses a JWK from an already-parsed JSON object.
    public init(jsonObject object: JSONObject) throws {
        try self.init(jsonObject: object, embedded: false)
    }

    /// Parses a JWK; `embedded`: a key taken from a token or a proof, held to ``EmbeddedKeyLimits``
    /// on its decoded members before any key is built.
    init(jsonObject object: JSONObject, embedded: Bool) throws {
        guard let kty = object["kty"]?.stringValue else {
            throw JOSEError(.invalidKey, "the JWK has no string \"kty\" member", member: "kty")
        }
        var key: JWK
        switch kty {
        case "RSA": key = try JWK.parseRSA(object, embedded: embedded)
        case "EC": key = try JWK.parseEC(object)
        case "OKP": key = try JWK.parseOKP(object)
        case "oct": key = try JWK.parseOct(object)
        case "AKP": key = try JWK.parseAKP(object)
        default: throw JOSEError(.unsupportedKey, "key type \"\(kty.jsonSafePrefix)\" is not supported", member: "kty")
        }
        key.keyID = try JWK.optionalString(object, "kid")
        key.use = try JWK.optionalString(object, "use")
        key.algorithm = try JWK.optionalString(object, "alg")
        if let ops = object["key_ops"] {
            guard let array = ops.arrayValue else { throw JOSEError(.invalidKey, "\"key_ops\" is not an array", member: "key_ops") }
            var operations: [String] = []
            for op in array {
                guard let name = op.stringValue, !operations.contains(name) else {
                    throw JOSEError(.invalidKey, "\"key_ops\" must hold distinct strings", member: "key_ops")
                }
                operations.append(name)
            }
            key.keyOperations = operations
        }
        self = key
    }

    static func optionalString(_ object: JSONObject, _ name: String) throws -> String? {
        guard let value = object[name] else { return nil }
        guard let string = value.stringValue else {
            throw JOSEError(.invalidKey, "\"\(name)\" is not a string", member: name)
        }
        return string
    }

    static func bytes(_ object: JSONObject, _ name: String, required: Bool = true) throws -> [UInt8]? {
        guard let value = object[name] else {
            if required { throw JOSEError(.invalidKey, "the key has no \"\(name)\" member", member: name) }
            return nil
        }
        guard let string = value.stringValue else { throw JOSEError(.invalidKey, "\"\(name)\" is not a string", member: name) }
        do {
            return try Base64URL.decode(string)
        } catch let error as JOSEError {
            throw JOSEError(.invalidKey, "\"\(name)\" is not valid Base64URL (\(error.reason))", member: name)
        }
    }

    static func parseRSA(_ object: JSONObject, embedded: Bool = false) throws -> JWK {
        guard let n = try bytes(object, "n"), let e = try bytes(object, "e") else { throw JOSEError(.invalidKey, "RSA key without n or e") }
        if embedded { try EmbeddedKeyLimits.checkRSA(modulus: n, exponent: e) }
        if object["oth"] != nil { throw JOSEError(.unsupportedKey, "multi-prime RSA keys (\"oth\") are not supported", member: "oth") }
        let d = try bytes(object, "d", required: false)
        var factors: RSAFactors? = nil
        if d != nil {
            let crt = try ["p", "q", "dp", "dq", "qi"].map { try bytes(object, $0, required: false) }
            if crt.contains(where: { $0 != nil }) {
                guard let p = crt[0], let q = crt[1], let dp = crt[2], let dq = crt[3], let qi = crt[4] else {
                    throw JOSEError(.invalidKey, "RSA private key has some but not all CRT parameters (p, q, dp, dq, qi)")
                }
                factors = RSAFactors(p: p, q: q, dp: dp, dq: dq, qi: qi)
            }
        }
        return try makeRSA(n: n, e: e, d: d, factors: factors)
    }

    static func parseEC(_ object: JSONObject) throws -> JWK {
        guard let crv = object["crv"]?.stringValue else { throw JOSEError(.invalidKey, "EC key without a string \"crv\"", member: "crv") }
        guard let curve = Curve(rawValue: crv) else {
            throw JOSEError(.unsupportedKey, "curve \"\(crv.jsonSafePrefix)\" is not supported", member: "crv")
        }
        guard let x = try bytes(object, "x"), let y = try bytes(object, "y") else { throw JOSEError(.invalidKey, "EC key without x or y") }
        let size = curve.coordinateSize
        guard x.count == size, y.count == size else {
            throw JOSEError(.invalidKey, "EC coordinates must be exactly \(size) bytes for \(crv)")
        }
        let d = try bytes(object, "d", required: false)
        if let d, d.count != size { throw JOSEError(.invalidKey, "EC private scalar must be exactly \(size) bytes for \(crv)", member: "d") }
        return try makeEC(curve: curve, point: [0x04] + x + y, d: d)
    }

    static func parseOKP(_ object: JSONObject) throws -> JWK {
        guard let crv = object["crv"]?.stringValue else { throw JOSEError(.invalidKey, "OKP key without a string \"crv\"", member: "crv") }
        guard let curve = OctetKeyPairCurve(rawValue: crv) else {
            throw JOSEError(.unsupportedKey, "OKP curve \"\(crv.jsonSafePrefix)\" is not supported", member: "crv")
        }
        guard let x = try bytes(object, "x"), x.count == 32 else { throw JOSEError(.invalidKey, "\(crv) public key must be 32 bytes", member: "x") }
        let d = try bytes(object, "d", required: false)
        if let d, d.count != 32 { throw JOSEError(.invalidKey, "\(crv) private key must be 32 bytes", member: "d") }
        return try makeOctetKeyPair(curve, publicKey: x, privateKey: d)
    }

    /// An `AKP` key (RFC 9964): `alg` (required) names the ML-DSA parameter set, `pub` the public key and
    /// `priv` the 32-byte seed. Another `AKP` algorithm is `.unsupportedKey` (a JWK Set skips it).
    static func parseAKP(_ object: JSONObject) throws -> JWK {
        guard let alg = object["alg"]?.stringValue else {
            throw JOSEError(.invalidKey, "an AKP key must name its algorithm in a string \"alg\"", member: "alg")
        }
        guard let set = MLDSAParameterSet(rawValue: alg) else {
            throw JOSEError(.unsupportedKey, "AKP algorithm \"\(alg.jsonSafePrefix)\" is not supported", member: "alg")
        }
        guard let pub = try bytes(object, "pub") else { throw JOSEError(.invalidKey, "AKP key without \"pub\"", member: "pub") }
        return try MLDSA.makeKey(set, publicKey: pub, seed: try bytes(object, "priv", required: false))
    }

    static func parseOct(_ object: JSONObject) throws -> JWK {
        guard let k = try bytes(object, "k") else { throw JOSEError(.invalidKey, "oct key without \"k\"", member: "k") }
        return JWK(symmetricKey: k)
    }

    /// A symmetric (`oct`) key for HMAC from raw secret bytes.
    public init(symmetricKey bytes: [UInt8]) {
        let secret = SecretBytes(bytes)
        // The thumbprint input needs `k`; it is kept only inside the redacted secret store.
        self.init(
            keyType: .oct, isPrivate: true, sizeInBits: bytes.count * 8, storage: .symmetric(secret),
            publicMembers: [("kty", "oct")])
    }
}
