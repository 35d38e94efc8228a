import OIDC

/// How a shared store writes its payloads: sealed with ``TokenEncryption`` (the key id kept beside the
/// payload) or, without encryption, as plain bytes (no key id). The one copy of the rule for every
/// store that keeps secrets at rest (`OIDCPostgres`'s rows, `OIDCRedis`'s keys).
package struct RowSealing: Sendable {
    package let encryption: TokenEncryption?
    /// Separates the stores' associated data, so a payload of one cannot be moved into the other.
    package let purpose: String

    package init(encryption: TokenEncryption?, purpose: String) {
        self.encryption = encryption
        self.purpose = purpose
    }

    /// The key id (`nil` in plain text) and the payload to store for `plaintext` under `rowKey`.
    package func seal(_ plaintext: [UInt8], rowKey: [UInt8]) throws -> (keyID: String?, payload: [UInt8]) {
        guard let encryption else { return (nil, plaintext) }
        let (keyID, sealed) = try encryption.seal(plaintext, associatedData: associatedData(rowKey))
        return (keyID, sealed)
    }

    /// The plaintext of a stored payload; refuses a sealed payload without a key, and plain bytes when a key is configured.
    package func open(_ payload: [UInt8], keyID: String?, rowKey: [UInt8]) throws -> [UInt8] {
        switch (keyID, encryption) {
        case (nil, nil): return payload
        case (let keyID?, let encryption?): return try encryption.open(payload, keyID: keyID, associatedData: associatedData(rowKey))
        case (let keyID?, nil):
            throw OIDCError(.decryptionFailed, "the row is encrypted (key id \(keyID)) and no encryption key is configured")
        case (nil, _?):
            throw OIDCError(.decryptionFailed, "the row is not encrypted but encryption is configured: refusing unauthenticated data")
        }
    }

    private func associatedData(_ rowKey: [UInt8]) -> [UInt8] { Array(purpose.utf8) + [0] + rowKey }
}
