extension CompactJWS {
    /// Signs `payload` and returns a compact JWS.
    ///
    /// The header gets `alg` (and `kid` from the key when it has one and the
    /// header does not); other members are copied from `header`.
    /// - Throws: ``JOSEError`` when the key cannot sign with `algorithm`.
    public static func sign(
        payload: [UInt8], header: JSONObject = JSONObject(), key: JWK,
        algorithm: JWSAlgorithm, policy: JWSVerificationPolicy = .default
    ) throws -> String {
        try PreparedJWSSigner(key: key, algorithm: algorithm, header: header, policy: policy).sign(payload: payload)
    }

    /// Signs a UTF-8 string payload.
    public static func sign(payload: String, header: JSONObject = JSONObject(), key: JWK, algorithm: JWSAlgorithm) throws -> String {
        try sign(payload: Array(payload.utf8), header: header, key: key, algorithm: algorithm)
    }
}

/// A signing key, algorithm and protected header checked and encoded once, for
/// signing many compact JWS with the same header (DPoP proofs, client assertions):
/// each ``sign(payload:)`` then only encodes the payload and signs.
///
/// `description` and `dump` show the algorithm, never key material.
public struct PreparedJWSSigner: Sendable, CustomStringConvertible, CustomReflectable {
    /// The algorithm of every signature.
    public let algorithm: JWSAlgorithm
    private let key: JWK
    /// Base64URL of the protected header, followed by ".".
    private let headerPrefix: [UInt8]
    private let unencodedPayload: Bool

    /// Checks that `key` may sign with `algorithm` (private, admitted by the key,
    /// `use`/`key_ops` permit signing, strong enough for `policy`) and encodes the
    /// header: `alg`, `kid` from the key when it has one and `header` does not, then `header`'s members.
    /// - Throws: ``JOSEError`` `.invalidKey`, `.keyAlgorithmMismatch`, `.keyUsageNotPermitted`, `.weakKey`.
    public init(key: JWK, algorithm: JWSAlgorithm, header: JSONObject = JSONObject(), policy: JWSVerificationPolicy = .default) throws {
        guard key.isPrivate else { throw JOSEError(.invalidKey, "signing needs a private or secret key") }
        guard key.admits(algorithm) else {
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
        self.algorithm = algorithm
        self.key = key
        unencodedPayload = members["b64"]?.boolValue == false
        headerPrefix = Array(Base64URL.encode(Array(members.jsonString().utf8)).utf8) + [UInt8(ascii: ".")]
    }

    /// Signs `payload` and returns the compact JWS.
    /// - Throws: ``JOSEError`` `.cryptoFailure` when libcrypto fails.
    public func sign(payload: [UInt8]) throws -> String {
        var input = headerPrefix
        input += unencodedPayload ? payload : Array(Base64URL.encode(payload).utf8)
        let signature = try Signer.sign(input: input, key: key, algorithm: algorithm)
        input.append(UInt8(ascii: "."))
        input += Base64URL.encode(signature).utf8
        return String(decoding: input, as: UTF8.self)
    }

    /// e.g. `PreparedJWSSigner(ES256)`.
    public var description: String { "PreparedJWSSigner(\(algorithm.rawValue))" }
    /// No children: `dump` shows nothing secret.
    public var customMirror: Mirror { Mirror(self, children: [:]) }
}
