extension JWK {
    /// The keys in a key file's text, whatever its form: a JWK (`oct` too), a JWK Set (its usable keys,
    /// in order), or a PEM key (private, public or certificate; it has no `kid`).
    /// - Parameter text: the file's contents.
    /// - Returns: one key or more, in file order.
    /// - Throws: ``JOSEError``: the JWK, JWK Set or PEM reader's codes; `.invalidKeySet` for a JWK Set with no usable key.
    public static func keys(fromFileText text: String) throws -> [JWK] {
        let start = text.utf8.first { $0 != 0x20 && $0 != 0x09 && $0 != 0x0A && $0 != 0x0D }
        guard start == UInt8(ascii: "{") else { return [try JWK(pem: text)] }
        let object = try JSONParser.parseObject(Array(text.utf8), what: "the key file")
        guard object["keys"] != nil else { return [try JWK(jsonObject: object)] }
        let set = try JWKSet(json: text)
        guard !set.keys.isEmpty else { throw JOSEError(.invalidKeySet, "the JWK Set has no usable key") }
        return set.keys
    }
}
