/// A key usable for JWS or JWE: RSA, EC (P-256/384/521), OKP (Ed25519, or X25519 for JWE ECDH-ES), AKP (ML-DSA,
/// RFC 9964) or a symmetric `oct` secret, parsed from a JWK (RFC 7517/7518/8037/9964) or from PEM.
///
/// The key decides which algorithms it can be used with (``admittedAlgorithms``);
/// a token's `alg` header can only narrow that set, never widen it.
/// `description` never shows key material.
public struct JWK: Sendable, CustomStringConvertible, CustomDebugStringConvertible {
    /// Elliptic curves for `EC` keys.
    public enum Curve: String, Sendable, Hashable, CaseIterable {
        /// NIST P-256 (secp256r1).
        case p256 = "P-256"
        /// NIST P-384 (secp384r1).
        case p384 = "P-384"
        /// NIST P-521 (secp521r1).
        case p521 = "P-521"

        /// Bytes in one coordinate (and in each of `r` and `s`).
        public var coordinateSize: Int {
            switch self {
            case .p256: return 32
            case .p384: return 48
            case .p521: return 66
            }
        }
        var openSSLName: String {
            switch self {
            case .p256: return "prime256v1"
            case .p384: return "secp384r1"
            case .p521: return "secp521r1"
            }
        }
        /// The only ES* algorithm this curve admits.
        public var algorithm: JWSAlgorithm {
            switch self {
            case .p256: return .es256
            case .p384: return .es384
            case .p521: return .es512
            }
        }
    }

    /// The key type.
    public enum KeyType: Sendable, Hashable, CustomStringConvertible {
        /// `RSA`
        case rsa
        /// `EC` on a curve.
        case ec(Curve)
        /// `OKP` Ed25519.
        case ed25519
        /// `OKP` X25519 (RFC 8037): JWE `ECDH-ES` key agreement only, never a signature.
        case x25519
        /// `oct` (an HMAC secret).
        case oct
        /// `AKP` with an ML-DSA `alg` (RFC 9964): signatures only, when the runtime libcrypto provides ML-DSA.
        case mlDSA(MLDSAParameterSet)

        /// The `kty` value.
        public var kty: String {
            switch self {
            case .rsa: return "RSA"
            case .ec: return "EC"
            case .ed25519, .x25519: return "OKP"
            case .oct: return "oct"
            case .mlDSA: return "AKP"
            }
        }
        /// e.g. `RSA`, `EC P-256`, `OKP Ed25519`, `oct`.
        public var description: String {
            switch self {
            case .rsa: return "RSA"
            case .ec(let curve): return "EC \(curve.rawValue)"
            case .ed25519: return "OKP Ed25519"
            case .x25519: return "OKP X25519"
            case .oct: return "oct"
            case .mlDSA(let set): return "AKP \(set.rawValue)"
            }
        }
    }

    enum Storage: Sendable {
        case asymmetric(EVPKey)
        case symmetric(SecretBytes)
        /// A key whose algorithm the runtime libcrypto lacks (ML-DSA before OpenSSL 3.5): described, never used.
        case unavailable
    }

    /// Everything a key holds, behind one reference: copying a `JWK` (into a
    /// verified ``JWT``, say) is then one reference-count update, not one per
    /// member. When many threads verify with one key, each such update is a
    /// write to memory they share. The metadata is copied on write.
    final class Core: @unchecked Sendable {
        let keyType: KeyType
        let isPrivate: Bool
        let sizeInBits: Int
        let storage: Storage
        /// The public members that define the key (`kty` included), Base64URL values.
        let publicMembers: [(name: String, value: String)]
        var keyID: String?
        var use: String?
        var algorithm: String?
        var keyOperations: [String]?

        init(keyType: KeyType, isPrivate: Bool, sizeInBits: Int, storage: Storage, publicMembers: [(name: String, value: String)]) {
            self.keyType = keyType
            self.isPrivate = isPrivate
            self.sizeInBits = sizeInBits
            self.storage = storage
            self.publicMembers = publicMembers
        }

        func copy() -> Core {
            let core = Core(keyType: keyType, isPrivate: isPrivate, sizeInBits: sizeInBits, storage: storage, publicMembers: publicMembers)
            core.keyID = keyID
            core.use = use
            core.algorithm = algorithm
            core.keyOperations = keyOperations
            return core
        }
    }

    private var core: Core

    /// The key type (and curve).
    public var keyType: KeyType { core.keyType }
    /// `kid`
    public var keyID: String? {
        get { core.keyID }
        set { uniqueCore().keyID = newValue }
    }
    /// `use` (`sig`, `enc`, or another value kept verbatim).
    public var use: String? {
        get { core.use }
        set { uniqueCore().use = newValue }
    }
    /// `alg`, kept verbatim (it may name a non-JWS algorithm, which then admits nothing).
    public var algorithm: String? {
        get { core.algorithm }
        set { uniqueCore().algorithm = newValue }
    }
    /// `key_ops`
    public var keyOperations: [String]? {
        get { core.keyOperations }
        set { uniqueCore().keyOperations = newValue }
    }
    /// Whether private (or secret) material is present.
    public var isPrivate: Bool { core.isPrivate }
    /// Size in bits: the RSA modulus, the curve order, 256 for Ed25519 and X25519, the secret length for `oct`,
    /// the encoded public key for ML-DSA.
    public var sizeInBits: Int { core.sizeInBits }

    var storage: Storage { core.storage }
    /// The public members that define the key (`kty` included), Base64URL values.
    var publicMembers: [(name: String, value: String)] { core.publicMembers }

    init(keyType: KeyType, isPrivate: Bool, sizeInBits: Int, storage: Storage, publicMembers: [(String, String)]) {
        core = Core(
            keyType: keyType, isPrivate: isPrivate, sizeInBits: sizeInBits, storage: storage,
            publicMembers: publicMembers.map { (name: $0.0, value: $0.1) })
    }

    /// The same key behind a reference of its own: copies of the result never touch the reference count that copies
    /// of `self` share.
    package func detached() -> JWK {
        var copy = self
        copy.core = core.copy()
        return copy
    }

    private mutating func uniqueCore() -> Core {
        if !isKnownUniquelyReferenced(&core) { core = core.copy() }
        return core
    }

    /// The algorithms this key can be used with: those of its type, narrowed by its `alg` member.
    public var admittedAlgorithms: Set<JWSAlgorithm> {
        let byType: Set<JWSAlgorithm>
        switch keyType {
        case .rsa: byType = [.rs256, .rs384, .rs512, .ps256, .ps384, .ps512]
        case .ec(let curve): byType = [curve.algorithm]
        case .ed25519: byType = [.eddsa, .ed25519]
        case .x25519: byType = []
        case .oct: byType = [.hs256, .hs384, .hs512]
        case .mlDSA(let set): byType = [set.algorithm]
        }
        guard let algorithm else { return byType }
        guard let named = JWSAlgorithm(rawValue: algorithm) else { return [] }
        if keyType == .ed25519, named == .eddsa || named == .ed25519 { return byType }
        return byType.intersection([named])
    }

    /// Whether the key can be used with `algorithm` (the allocation-free form of
    /// `admittedAlgorithms.contains(algorithm)`, used on the verification path).
    public func admits(_ algorithm: JWSAlgorithm) -> Bool {
        let byType: Bool
        switch (keyType, algorithm.family) {
        case (.rsa, .rsaPKCS1), (.rsa, .rsaPSS), (.oct, .hmac), (.ed25519, .eddsa): byType = true
        case (.ec(let curve), .ecdsa): byType = curve.algorithm == algorithm
        case (.mlDSA(let set), .mlDSA): byType = set.algorithm == algorithm
        default: byType = false
        }
        guard byType, let restriction = self.algorithm else { return byType }
        if keyType == .ed25519 { return restriction == "EdDSA" || restriction == "Ed25519" }
        return restriction == algorithm.rawValue
    }

    /// Whether the key's `use` and `key_ops` permit an operation (`"verify"` or `"sign"`).
    public func permits(operation: String) -> Bool {
        if let use, use != "sig" { return false }
        if let keyOperations, !keyOperations.contains(operation) { return false }
        return true
    }

    /// A short label: type, size and `kid` — never key material.
    public var description: String {
        var text = "\(keyType) \(sizeInBits)-bit \(isPrivate ? (keyType == .oct ? "secret" : "private") : "public") key"
        if let keyID { text += " kid=\"\(keyID.jsonSafePrefix)\"" }
        return text
    }
    /// Same as ``description``.
    public var debugDescription: String { "JWK(\(description))" }

    var evpKey: EVPKey? { if case .asymmetric(let key) = core.storage { return key }; return nil }
    var secret: SecretBytes? { if case .symmetric(let secret) = core.storage { return secret }; return nil }
}
