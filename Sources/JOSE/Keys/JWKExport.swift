extension JWK {
    /// The public JWK as a JSON object: the defining members plus `kid`, `use`,
    /// `alg` and `key_ops`. Never includes private or secret material; an `oct`
    /// key has no public form and yields only its metadata.
    public var publicJWK: JSONObject {
        var object = JSONObject()
        object["kty"] = .string(keyType.kty)
        for member in publicMembers where member.name != "kty" { object[member.name] = .string(member.value) }
        if let keyID { object["kid"] = .string(keyID) }
        if let use { object["use"] = .string(use) }
        if let algorithm { object["alg"] = .string(algorithm) }
        if let keyOperations { object["key_ops"] = .array(keyOperations.map { .string($0) }) }
        return object
    }

    /// The public JWK as compact JSON text.
    public var publicJWKString: String { publicJWK.jsonString() }

    /// This key without its private half (an `oct` key is returned unchanged:
    /// a secret has no public half).
    public var publicKey: JWK {
        guard isPrivate else { return self }
        if case .symmetric = storage { return self }
        // Re-import the public members so no private component is reachable.
        var object = JSONObject()
        for member in publicMembers { object[member.name] = .string(member.value) }
        guard var key = try? JWK(jsonObject: object) else { return self }
        key.keyID = keyID
        key.use = use
        key.algorithm = algorithm
        key.keyOperations = keyOperations?.filter { $0 == "verify" }
        return key
    }

    /// The JWK thumbprint (RFC 7638): Base64URL of the hash of the required
    /// members in lexicographic order, without whitespace.
    public func thumbprint(using digest: DigestAlgorithm = .sha256) -> String {
        var members = publicMembers
        if case .symmetric(let secret) = storage {
            members = [("k", Base64URL.encode(secret.exposedCopy)), ("kty", "oct")]
        }
        let object = JSONObject(members.map { ($0.name, JSONValue.string($0.value)) })
        return Base64URL.encode(digest.hash(Array(object.jsonString(sortedKeys: true).utf8)))
    }
}
