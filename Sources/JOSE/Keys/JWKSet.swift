/// A JWK Set (RFC 7517 §5).
///
/// Keys that cannot be used — an unknown `kty` or curve, or malformed members —
/// are skipped, not fatal, and listed in ``skipped`` with the reason.
public struct JWKSet: Sendable, CustomStringConvertible {
    /// A key the set held but this library could not use.
    public struct SkippedKey: Sendable, CustomStringConvertible {
        /// Position in the `keys` array.
        public let index: Int
        /// Its `kid`, when it had a string one.
        public let keyID: String?
        /// Why it was skipped.
        public let error: JOSEError
        /// e.g. `key #2 (kid "x"): unsupported_key: ...`.
        public var description: String {
            "key #\(index)" + (keyID.map { " (kid \"\($0.jsonSafePrefix)\")" } ?? "") + ": \(error)"
        }
    }

    /// The usable keys, in document order.
    public let keys: [JWK]
    /// The keys that were skipped.
    public let skipped: [SkippedKey]

    /// A set of the given keys.
    public init(keys: [JWK]) {
        self.keys = keys
        self.skipped = []
    }

    /// The keys of this set that `isIncluded` keeps, with the record of skipped entries kept too: a token
    /// naming a skipped key's `kid` is still told why (``JOSEError/Code/unsupportedKeyType``), not "no such key".
    package func filter(_ isIncluded: (JWK) -> Bool) -> JWKSet {
        JWKSet(keys: keys.filter(isIncluded), skipped: skipped)
    }

    private init(keys: [JWK], skipped: [SkippedKey]) {
        self.keys = keys
        self.skipped = skipped
    }

    /// Parses a JWK Set document.
    /// - Throws: ``JOSEError`` when the document is not JSON, has no `keys`
    ///   array, or exceeds the limits. Individual bad keys are skipped instead.
    public init(json: String, limits: JOSELimits = .default) throws {
        try self.init(jsonBytes: Array(json.utf8), limits: limits)
    }

    /// Parses a JWK Set document from bytes.
    public init(jsonBytes: [UInt8], limits: JOSELimits = .default) throws {
        let object = try JSONParser.parseObject(jsonBytes, limits: limits.keySetJSON, what: "the JWK Set")
        guard let array = object["keys"]?.arrayValue else {
            throw JOSEError(.invalidKeySet, "the JWK Set has no \"keys\" array", member: "keys")
        }
        guard array.count <= limits.maxKeysInSet else {
            throw JOSEError(.limitExceeded, "the JWK Set holds \(array.count) keys, more than the limit of \(limits.maxKeysInSet)")
        }
        var keys: [JWK] = []
        var skipped: [SkippedKey] = []
        for (index, element) in array.enumerated() {
            guard let member = element.objectValue else {
                skipped.append(SkippedKey(index: index, keyID: nil, error: JOSEError(.invalidKey, "not a JSON object")))
                continue
            }
            do {
                keys.append(try JWK(jsonObject: member))
            } catch let error as JOSEError {
                skipped.append(SkippedKey(index: index, keyID: member["kid"]?.stringValue, error: error))
            }
        }
        self.keys = keys
        self.skipped = skipped
    }

    /// The keys whose `kid` equals `keyID`.
    public func keys(withID keyID: String) -> [JWK] { keys.filter { $0.keyID == keyID } }

    /// The keys that admit `algorithm` and permit verification.
    public func keys(for algorithm: JWSAlgorithm) -> [JWK] {
        keys.filter { $0.admittedAlgorithms.contains(algorithm) && $0.permits(operation: "verify") }
    }

    /// Whether the set mixes symmetric secrets with asymmetric keys, which
    /// invites algorithm confusion; verification refuses such sets by default.
    public var mixesSymmetricAndAsymmetricKeys: Bool {
        let symmetric = keys.contains { $0.keyType == .oct }
        return symmetric && keys.contains { $0.keyType != .oct }
    }

    /// The key for a JWS header: ``selectKey(keyID:algorithm:allowMixedKeySet:)`` with the header's `kid` and `alg`.
    func key(for header: JOSEHeader, policy: JWSVerificationPolicy) throws -> JWK {
        let algorithm = try header.signatureAlgorithm ?? JWSAlgorithm(headerValue: header.algorithmName ?? "")
        return try selectKey(keyID: header.keyID, algorithm: algorithm, allowMixedKeySet: policy.allowsMixedKeySets)
    }

    /// Chooses the one key for a token: by `kid` when the header has one,
    /// otherwise the single key that fits the algorithm.
    /// - Throws: `.keyNotFound`, `.ambiguousKey`, `.invalidKeySet`; `.unsupportedKeyType` when the `kid` names
    ///   only a key the set holds but this library skipped for its type (e.g. `kty: AKP` with an unknown `alg`).
    public func selectKey(keyID: String?, algorithm: JWSAlgorithm, allowMixedKeySet: Bool = false) throws -> JWK {
        if !allowMixedKeySet, mixesSymmetricAndAsymmetricKeys {
            throw JOSEError(.invalidKeySet, "the key set mixes symmetric and asymmetric keys")
        }
        if let keyID {
            // Counted in one pass, no arrays built (the hot path of every verification with a key set).
            var named = 0
            var matchCount = 0
            var match: JWK?
            for key in keys where key.keyID == keyID {
                named += 1
                // Keys whose use/key_ops forbid verification (e.g. `use: enc`) never verify a
                // signature, so they neither match a kid nor make it ambiguous.
                if key.permits(operation: "verify") {
                    matchCount += 1
                    if match == nil { match = key }
                }
            }
            guard let match else {
                if named > 0 {
                    throw JOSEError(.keyUsageNotPermitted, "the key with kid \"\(keyID.jsonSafePrefix)\" does not permit verification", member: "kid")
                }
                try checkSkipped(keyID: keyID)
                throw JOSEError(.keyNotFound, "no key with kid \"\(keyID.jsonSafePrefix)\" in the set", member: "kid")
            }
            // A skipped (unusable) entry with the same kid still makes the kid ambiguous:
            // the publisher listed two keys under one name and we cannot tell which was meant.
            var sharing = matchCount
            for entry in skipped where entry.keyID == keyID { sharing += 1 }
            if sharing > 1 {
                throw JOSEError(.ambiguousKey, "\(sharing) keys in the set share kid \"\(keyID.jsonSafePrefix)\"", member: "kid")
            }
            return match
        }
        let candidates = keys(for: algorithm)
        if candidates.count == 1 { return candidates[0] }
        if candidates.isEmpty {
            throw JOSEError(.keyNotFound, "the token has no kid and no key in the set fits \(algorithm)")
        }
        let names = candidates.map { $0.keyID.map { "\"\($0.jsonSafePrefix)\"" } ?? "(no kid)" }.joined(separator: ", ")
        throw JOSEError(.ambiguousKey, "the token has no kid and \(candidates.count) keys fit \(algorithm): \(names)")
    }

    /// A `kid` that names only skipped entries: a typed answer when one of them was skipped for its type.
    /// - Throws: `.unsupportedKeyType` (unknown `kty`, curve or `AKP` algorithm), `.algorithmUnavailable`
    ///   (a known type the runtime's libcrypto lacks); returns when no such entry has the `kid`.
    private func checkSkipped(keyID: String) throws {
        for entry in skipped where entry.keyID == keyID {
            switch entry.error.code {
            case .unsupportedKey, .unsupportedKeyType:
                throw JOSEError(
                    .unsupportedKeyType, "the key with kid \"\(keyID.jsonSafePrefix)\" is of a type this library does not support (\(entry.error.reason))",
                    member: "kid")
            case .algorithmUnavailable:
                throw JOSEError(.algorithmUnavailable, "the key with kid \"\(keyID.jsonSafePrefix)\": \(entry.error.reason)", member: "kid")
            default:
                continue
            }
        }
    }

    /// e.g. `JWKSet(3 keys, 1 skipped)`.
    public var description: String { "JWKSet(\(keys.count) keys, \(skipped.count) skipped)" }
}
