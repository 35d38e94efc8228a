import Foundation
import OIDC
import Testing

@testable import OIDCPostgres

@Suite("Table names and AES-256-GCM sealing (no database)")
struct TableNameAndEncryptionTests {
    @Test(
        "only plain identifiers are accepted, and they are quoted",
        arguments: [
            "a;drop table x", "\"x\"", "1abc", "", "a.b.c", "a..b", ".a", "tokens ", "tökens", String(repeating: "a", count: 64),
        ])
    func rejected(_ name: String) async {
        await expectError(.invalidTableName) { _ = try TableName(name) }
    }

    @Test("accepted names keep their case and are quoted part by part")
    func accepted() throws {
        #expect(try TableName("oidc_Tokens").quoted == "\"oidc_Tokens\"")
        #expect(try TableName("app.tokens_2").quoted == "\"app\".\"tokens_2\"")
    }

    @Test("seal/open round trip; other row, altered byte, unknown key id and plain rows are refused")
    func sealing() async throws {
        let encryption = try TokenEncryption(current: TestDatabase.key("k1", 1))
        let sealing = RowSealing(encryption: encryption, purpose: "test")
        let (keyID, sealed) = try sealing.seal(Array("secret-token".utf8), rowKey: Array("alice".utf8))
        guard let id = keyID else { Issue.record("no key id"); return }
        #expect(id == "k1")
        #expect(sealed.count == 12 + 12 + 16)
        #expect(try sealing.open(sealed, keyID: "k1", rowKey: Array("alice".utf8)) == Array("secret-token".utf8))
        await expectError(.decryptionFailed) { _ = try sealing.open(sealed, keyID: "k1", rowKey: Array("bob".utf8)) }
        await expectError(.decryptionFailed) {
            _ = try RowSealing(encryption: encryption, purpose: "other").open(sealed, keyID: "k1", rowKey: Array("alice".utf8))
        }
        for index in [0, 12, sealed.count - 1] {
            var altered = sealed
            altered[index] ^= 0x01
            await expectError(.decryptionFailed) { _ = try sealing.open(altered, keyID: "k1", rowKey: Array("alice".utf8)) }
        }
        await expectError(.decryptionFailed) { _ = try sealing.open(Array(sealed.prefix(20)), keyID: "k1", rowKey: Array("alice".utf8)) }
        await expectError(.decryptionFailed) { _ = try sealing.open(sealed, keyID: "k9", rowKey: Array("alice".utf8)) }
        await expectError(.decryptionFailed) { _ = try sealing.open(Array("plain".utf8), keyID: nil, rowKey: Array("alice".utf8)) }
        await expectError(.decryptionFailed) { _ = try RowSealing(encryption: nil, purpose: "test").open(sealed, keyID: "k1", rowKey: Array("alice".utf8)) }
        // Two seals of the same text differ (fresh nonce).
        #expect(try sealing.seal(Array("secret-token".utf8), rowKey: Array("alice".utf8)).payload != sealed)
    }

    @Test("rotation: rows sealed with the previous key open; new rows use the current key")
    func rotation() async throws {
        let old = RowSealing(encryption: try TokenEncryption(current: TestDatabase.key("k1", 1)), purpose: "p")
        let rotated = RowSealing(
            encryption: try TokenEncryption(current: TestDatabase.key("k2", 2), previous: [TestDatabase.key("k1", 1)]),
            purpose: "p")
        let (_, sealed) = try old.seal([1, 2, 3], rowKey: [1])
        #expect(try rotated.open(sealed, keyID: "k1", rowKey: [1]) == [1, 2, 3])
        guard let id = try rotated.seal([1], rowKey: [1]).keyID else { Issue.record("no key id"); return }
        #expect(id == "k2")
        // The same id with other bytes does not open it.
        let impostor = RowSealing(encryption: try TokenEncryption(current: TestDatabase.key("k1", 9)), purpose: "p")
        await expectError(.decryptionFailed) { _ = try impostor.open(sealed, keyID: "k1", rowKey: [1]) }
    }

    @Test("bad keys are typed errors; no key bytes in description or dump")
    func keys() async throws {
        await expectError(.invalidEncryptionKey) { _ = try TokenEncryptionKey(id: "k", bytes: [UInt8](repeating: 1, count: 16)) }
        await expectError(.invalidEncryptionKey) { _ = try TokenEncryptionKey(id: "", bytes: [UInt8](repeating: 1, count: 32)) }
        await expectError(.invalidEncryptionKey) { _ = try TokenEncryptionKey(id: "a b", bytes: [UInt8](repeating: 1, count: 32)) }
        await expectError(.invalidEncryptionKey) {
            _ = try TokenEncryption(current: TestDatabase.key("k", 1), previous: [TestDatabase.key("k", 2)])
        }
        let key = try TokenEncryptionKey(id: "main", bytes: [UInt8](repeating: 0xAB, count: 32))
        var dumped = ""
        dump(try TokenEncryption(current: key), to: &dumped)
        dump(key, to: &dumped)
        dumped += "\(key) \(String(reflecting: key))"
        #expect(dumped.contains("main"))
        #expect(!dumped.contains("171") && !dumped.lowercased().contains("abab"))
    }
}
