import OIDCSession

extension RowSealing {
    /// ``/OIDCSession/RowSealing``'s seal with the key id as a statement parameter (`NULL` in plain text).
    func sealRow(_ plaintext: [UInt8], rowKey: [UInt8]) throws -> (keyID: PGParameter, payload: [UInt8]) {
        let (keyID, payload) = try seal(plaintext, rowKey: rowKey)
        return (keyID.map { .text($0) } ?? .null, payload)
    }
}
