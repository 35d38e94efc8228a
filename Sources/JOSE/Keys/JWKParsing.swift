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
        guard let kty = object["kty"]?.stringValue else {
            throw JOSEError(.invalidKey, "the JWK has no string \"kty\" member", member: "kty")
        }
        var key: JWK
        switch kty {
        case "RSA": key = try JWK.parseRSA(object)
        case "EC": key = try JWK.parseEC(object)
        case "OKP": key = try JWK.parseOKP(object)
        case "oct": key = try JWK.parseOct(object)
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

    static func parseRSA(_ object: JSONObject) throws -> JWK {
        guard let n = try bytes(object, "n"), let e = try bytes(object, "e") else { throw JOSEError(.invalidKey, "RSA key without n or e") }
        if object["oth"] != nil { throw JOSEError(.unsupportedKey, "multi-prime RSA keys (\"oth\") are not supported", member: "oth") }
        let d = try bytes(object, "d", required: false)
        var params: [KeyBuilder.Param] = [.bigNumber("n", n), .bigNumber("e", e)]
        if let d {
            params.append(.bigNumber("d", d))
            let crt = try ["p", "q", "dp", "dq", "qi"].map { try bytes(object, $0, required: false) }
            if crt.contains(where: { $0 != nil }) {
                guard let p = crt[0], let q = crt[1], let dp = crt[2], let dq = crt[3], let qi = crt[4] else {
                    throw JOSEError(.invalidKey, "RSA private key has some but not all CRT parameters (p, q, dp, dq, qi)")
                }
                params += [.bigNumber("rsa-factor1", p), .bigNumber("rsa-factor2", q), .bigNumber("rsa-exponent1", dp),
                           .bigNumber("rsa-exponent2", dq), .bigNumber("rsa-coefficient1", qi)]
            }
        }
        return try makeRSA(n: n, e: e, params: params, isPrivate: d != nil)
    }

    static func makeRSA(n: [UInt8], e: [UInt8], params: [KeyBuilder.Param], isPrivate: Bool) throws -> JWK {
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
        let key = try KeyBuilder.fromData(type: "RSA", isPrivate: isPrivate, params: params)
        try KeyBuilder.check(key, isPrivate: isPrivate, what: "RSA key")
        return JWK(keyType: .rsa, isPrivate: isPrivate, sizeInBits: key.bits, storage: .asymmetric(key),
                   publicMembers: [("e", Base64URL.encode(exponent)), ("kty", "RSA"), ("n", Base64URL.encode(modulus))])
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
        return try makeEC(curve: curve, x: x, y: y, d: d)
    }

    static func makeEC(curve: Curve, x: [UInt8], y: [UInt8], d: [UInt8]?) throws -> JWK {
        var params: [KeyBuilder.Param] = [.utf8("group", curve.openSSLName), .octets("pub", [0x04] + x + y)]
        if let d { params.append(.bigNumber("priv", d)) }
        let key = try KeyBuilder.fromData(type: "EC", isPrivate: d != nil, params: params)
        try KeyBuilder.check(key, isPrivate: d != nil, what: "EC key")
        return JWK(keyType: .ec(curve), isPrivate: d != nil, sizeInBits: key.bits, storage: .asymmetric(key),
                   publicMembers: [("crv", curve.rawValue), ("kty", "EC"), ("x", Base64URL.encode(x)), ("y", Base64URL.encode(y))])
    }

    static func parseOKP(_ object: JSONObject) throws -> JWK {
        guard let crv = object["crv"]?.stringValue else { throw JOSEError(.invalidKey, "OKP key without a string \"crv\"", member: "crv") }
        guard crv == "Ed25519" else { throw JOSEError(.unsupportedKey, "OKP curve \"\(crv.jsonSafePrefix)\" is not supported", member: "crv") }
        guard let x = try bytes(object, "x"), x.count == 32 else { throw JOSEError(.invalidKey, "Ed25519 public key must be 32 bytes", member: "x") }
        let d = try bytes(object, "d", required: false)
        if let d {
            guard d.count == 32 else { throw JOSEError(.invalidKey, "Ed25519 private key must be 32 bytes", member: "d") }
            let key = try makeEd25519(raw: d, isPrivate: true)
            guard KeyBuilder.rawKey(key, private: false) == x else {
                throw JOSEError(.invalidKey, "Ed25519 private key does not match its public key")
            }
            return JWK(keyType: .ed25519, isPrivate: true, sizeInBits: 256, storage: .asymmetric(key),
                       publicMembers: [("crv", "Ed25519"), ("kty", "OKP"), ("x", Base64URL.encode(x))])
        }
        let key = try makeEd25519(raw: x, isPrivate: false)
        return JWK(keyType: .ed25519, isPrivate: false, sizeInBits: 256, storage: .asymmetric(key),
                   publicMembers: [("crv", "Ed25519"), ("kty", "OKP"), ("x", Base64URL.encode(x))])
    }

    static func makeEd25519(raw: [UInt8], isPrivate: Bool) throws -> EVPKey {
        let pointer = raw.withUnsafeBufferPointer { buffer in
            isPrivate ? EVP_PKEY_new_raw_private_key_ex(nil, "ED25519", nil, buffer.baseAddress, buffer.count)
                : EVP_PKEY_new_raw_public_key_ex(nil, "ED25519", nil, buffer.baseAddress, buffer.count)
        }
        guard let pointer else {
            ERR_clear_error()
            throw JOSEError(.invalidKey, "libcrypto refused the Ed25519 key")
        }
        return EVPKey(taking: pointer)
    }

    static func parseOct(_ object: JSONObject) throws -> JWK {
        guard let k = try bytes(object, "k") else { throw JOSEError(.invalidKey, "oct key without \"k\"", member: "k") }
        return JWK(symmetricKey: k)
    }

    /// A symmetric (`oct`) key for HMAC from raw secret bytes.
    public init(symmetricKey bytes: [UInt8]) {
        let secret = SecretBytes(bytes)
        // The thumbprint input needs `k`; it is kept only inside the redacted secret store.
        self.init(keyType: .oct, isPrivate: true, sizeInBits: bytes.count * 8, storage: .symmetric(secret),
                  publicMembers: [("kty", "oct")])
    }
}

import CLibCrypto
