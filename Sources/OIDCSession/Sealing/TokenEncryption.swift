import CLibCrypto
import JOSE
import OIDC

/// A 256-bit AES key with an identifier that is stored next to every row it encrypts.
/// The key bytes are wiped when the last copy is released and never printed.
public struct TokenEncryptionKey: Sendable, CustomStringConvertible, CustomReflectable {
    /// The identifier stored with each row (1–64 ASCII letters, digits, `-`, `_`, `.`).
    public let id: String
    fileprivate let material: KeyMaterial

    /// A key from 32 random bytes (e.g. read from a secret manager; generate them with
    /// `openssl rand 32`).
    /// - Throws: `invalid_encryption_key` for another length or a bad id.
    public init(id: String, bytes: [UInt8]) throws {
        guard bytes.count == 32 else {
            throw OIDCError(.invalidEncryptionKey, "an AES-256-GCM key has 32 bytes, this one has \(bytes.count)")
        }
        guard (1...64).contains(id.utf8.count), id.utf8.allSatisfy({ Self.idCharacters.contains($0) }) else {
            throw OIDCError(.invalidEncryptionKey, "a key id is 1-64 characters of A-Z a-z 0-9 - _ .")
        }
        self.id = id
        material = KeyMaterial(bytes)
    }

    private static let idCharacters = Set(Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.".utf8))

    /// `TokenEncryptionKey(id: ID)`: never the key.
    public var description: String { "TokenEncryptionKey(id: \(id))" }
    /// Only the id.
    public var customMirror: Mirror { Mirror(self, children: ["id": id]) }
}

/// Key bytes that are wiped when released.
final class KeyMaterial: @unchecked Sendable, CustomStringConvertible {
    private var storage: [UInt8]
    init(_ bytes: [UInt8]) { storage = bytes }
    deinit { storage.withUnsafeMutableBytes { OPENSSL_cleanse($0.baseAddress, $0.count) } }
    var description: String { "KeyMaterial(redacted)" }
    func withBytes<R>(_ body: (UnsafePointer<UInt8>) throws -> R) rethrows -> R {
        try storage.withUnsafeBufferPointer { buffer in
            var zero: UInt8 = 0
            guard let base = buffer.baseAddress else { return try body(&zero) }
            return try body(base)
        }
    }
}

/// Encryption at rest: AES-256-GCM with a random 96-bit nonce per write, the row's
/// key (user key or `state`) as associated data (a ciphertext moved to another row
/// does not decrypt), and key rotation by id: rows are written with ``current`` and
/// read with whichever configured key their stored id names, so old rows stay
/// readable until they are next written.
public struct TokenEncryption: Sendable, CustomStringConvertible, CustomReflectable {
    /// The key new rows are encrypted with.
    public let current: TokenEncryptionKey
    private let keys: [String: TokenEncryptionKey]

    /// Encrypts with `current`; decrypts with `current` or any of `previous`.
    /// - Throws: `invalid_encryption_key` when two keys share an id.
    public init(current: TokenEncryptionKey, previous: [TokenEncryptionKey] = []) throws {
        var keys = [current.id: current]
        for key in previous {
            guard keys[key.id] == nil else { throw OIDCError(.invalidEncryptionKey, "two keys have the id \(key.id)") }
            keys[key.id] = key
        }
        self.current = current
        self.keys = keys
    }

    /// `TokenEncryption(current: ID, keys: N)`.
    public var description: String { "TokenEncryption(current: \(current.id), keys: \(keys.count))" }
    /// Only the key ids.
    public var customMirror: Mirror { Mirror(self, children: ["current": current.id, "keys": keys.keys.sorted()]) }

    static let nonceLength = 12, tagLength = 16

    /// `nonce || ciphertext || tag` of `plaintext` under the current key.
    package func seal(_ plaintext: [UInt8], associatedData: [UInt8]) throws -> (keyID: String, sealed: [UInt8]) {
        let nonce: [UInt8]
        do { nonce = try SecureRandom.bytes(Self.nonceLength) } catch {
            throw OIDCError(.decryptionFailed, "no random bytes for an AES-GCM nonce")
        }
        let (ciphertext, tag) = try current.material.withBytes { key in
            try Self.run(encrypt: true, key: key, nonce: nonce, associatedData: associatedData, input: plaintext, tag: nil)
        }
        return (current.id, nonce + ciphertext + tag)
    }

    /// The plaintext of `sealed`, written under the key named `keyID` with `associatedData`.
    package func open(_ sealed: [UInt8], keyID: String, associatedData: [UInt8]) throws -> [UInt8] {
        guard let key = keys[keyID] else {
            throw OIDCError(.decryptionFailed, "the row was encrypted with key id \(keyID), which is not configured")
        }
        guard sealed.count >= Self.nonceLength + Self.tagLength else {
            throw OIDCError(.decryptionFailed, "the encrypted row is too short")
        }
        let nonce = Array(sealed[..<Self.nonceLength])
        let ciphertext = Array(sealed[Self.nonceLength..<(sealed.count - Self.tagLength)])
        let tag = Array(sealed[(sealed.count - Self.tagLength)...])
        return try key.material.withBytes { key in
            try Self.run(encrypt: false, key: key, nonce: nonce, associatedData: associatedData, input: ciphertext, tag: tag).output
        }
    }

    /// One AES-256-GCM operation through libcrypto's EVP interface.
    private static func run(
        encrypt: Bool, key: UnsafePointer<UInt8>, nonce: [UInt8], associatedData: [UInt8], input: [UInt8],
        tag: [UInt8]?
    ) throws -> (output: [UInt8], tag: [UInt8]) {
        let failure = OIDCError(
            .decryptionFailed,
            encrypt
                ? "AES-256-GCM encryption failed"
                : "the row does not decrypt (wrong key, other row, or altered)")
        guard let context = EVP_CIPHER_CTX_new() else { throw failure }
        defer { EVP_CIPHER_CTX_free(context) }
        guard input.count < Int(Int32.max - 64), associatedData.count < Int(Int32.max) else { throw failure }
        let initialised =
            encrypt
            ? EVP_EncryptInit_ex(context, EVP_aes_256_gcm(), nil, key, nonce)
            : EVP_DecryptInit_ex(context, EVP_aes_256_gcm(), nil, key, nonce)
        guard initialised == 1 else { throw failure }
        var length: Int32 = 0
        let update = encrypt ? EVP_EncryptUpdate : EVP_DecryptUpdate
        if !associatedData.isEmpty {
            guard update(context, nil, &length, associatedData, Int32(associatedData.count)) == 1 else { throw failure }
        }
        var output = [UInt8](repeating: 0, count: input.count + 16)
        var written: Int32 = 0
        if !input.isEmpty {
            guard output.withUnsafeMutableBufferPointer({ update(context, $0.baseAddress, &written, input, Int32(input.count)) }) == 1
            else { throw failure }
        }
        var tagBytes = tag ?? [UInt8](repeating: 0, count: tagLength)
        if !encrypt {
            guard
                tagBytes.withUnsafeMutableBytes({
                    EVP_CIPHER_CTX_ctrl(context, EVP_CTRL_GCM_SET_TAG, Int32(tagLength), $0.baseAddress)
                }) == 1
            else { throw failure }
        }
        var final: Int32 = 0
        let finished = output.withUnsafeMutableBufferPointer { buffer in
            (encrypt ? EVP_EncryptFinal_ex : EVP_DecryptFinal_ex)(context, buffer.baseAddress.map { $0 + Int(written) }, &final)
        }
        guard finished == 1 else { throw failure }
        if encrypt {
            guard
                tagBytes.withUnsafeMutableBytes({
                    EVP_CIPHER_CTX_ctrl(context, EVP_CTRL_GCM_GET_TAG, Int32(tagLength), $0.baseAddress)
                }) == 1
            else { throw failure }
        }
        let total = Int(written) + Int(final)
        guard total >= 0, total <= output.count else { throw failure }
        return (Array(output[..<total]), tagBytes)
    }
}
