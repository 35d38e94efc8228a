import OIDC

/// How a store writes its payloads: sealed with ``TokenEncryption`` (key id kept
/// with the row) or, without encryption, as plain bytes (key id `NULL`).
struct RowSealing: Sendable {
    let encryption: TokenEncryption?
    /// Separates the stores' associated data, so a row of one cannot be moved into the other.
    let purpose: String

    func seal(_ plaintext: [UInt8], rowKey: [UInt8]) throws -> (keyID: PGParameter, payload: [UInt8]) {
        guard let encryption else { return (.null, plaintext) }
        let (keyID, sealed) = try encryption.seal(plaintext, associatedData: associatedData(rowKey))
        return (.text(keyID), sealed)
    }

    func open(_ payload: [UInt8], keyID: String?, rowKey: [UInt8]) throws -> [UInt8] {
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
