import Foundation
import Testing

@testable import JOSE

/// The Wycheproof primitive files behind JWE (byte-for-byte copies under
/// `Fixtures/vectors/wycheproof/jwe/`), run through the code JWE uses:
/// RSA-OAEP (`RSAOAEP`), ECDH on P-256/384/521 and X25519 with the peer key built
/// the way an `epk` header is (`JWK(jsonObject:)`), AES key wrap (`AESKeyWrap`),
/// AES-GCM and AES-CBC (`ContentCipher`).
///
/// Outcomes: `valid` must succeed with the expected output, `invalid` must be refused,
/// `acceptable` may go either way but a success must give the expected output. Inputs
/// JWE cannot carry are refused by construction and counted apart: an OAEP label
/// (JWE's is always empty), GCM IVs other than 96 bits and tags other than 128 bits,
/// compressed EC points (an `epk` has `x` and `y`), and every all-zero X25519 output.
@Suite("JWE: Wycheproof primitive vectors (OAEP, ECDH, X25519, AES-KW, GCM, CBC)")
struct WycheproofJWEPrimitiveTests {
    static let directory = Fixtures.directory.appendingPathComponent("vectors/wycheproof/jwe")

    struct Tally: CustomStringConvertible {
        var total = 0
        var passed = 0
        var refusedByConstruction = 0
        var wrong: [String] = []
        var description: String {
            "\(passed + refusedByConstruction)/\(total) as expected (\(refusedByConstruction) refused by construction), \(wrong.count) wrong"
        }

        mutating func record(_ label: String, ok: Bool, why: @autoclosure () -> String) {
            total += 1
            if ok { passed += 1 } else { wrong.append("\(label): \(why())") }
        }
    }

    /// Runs `body` on every test of `file`, with its group.
    static func forEachTest(_ file: String, _ body: (JSONObject, JSONObject, String) throws -> Void) throws {
        let root = try Fixtures.object(directory.appendingPathComponent(file))
        for groupValue in root["testGroups"]?.arrayValue ?? [] {
            guard let group = groupValue.objectValue else { continue }
            for testValue in group["tests"]?.arrayValue ?? [] {
                guard let test = testValue.objectValue else { continue }
                let label =
                    "\(file) #\(test["tcId"]?.int64Value ?? -1) \(test["comment"]?.stringValue ?? "") \((test["flags"]?.arrayValue ?? []).compactMap(\.stringValue))"
                try body(group, test, label)
            }
        }
    }

    static func hex(_ test: JSONObject, _ name: String) -> [UInt8] { hexBytes(test[name]?.stringValue ?? "") }
    static func result(_ test: JSONObject) -> String { test["result"]?.stringValue ?? "" }

    // MARK: RSA-OAEP

    static func oaep(_ file: String, sha256: Bool) throws -> Tally {
        var tally = Tally()
        try forEachTest(file) { group, test, label in
            let key = try JWK(jsonObject: try #require(group["privateKeyJwk"]?.objectValue))
            guard case .asymmetric(let evp) = key.storage else { throw JOSEError(.invalidKey, "not RSA") }
            let output = RSAOAEP.decrypt(hex(test, "ct"), key: evp, sha256: sha256)
            if !hex(test, "label").isEmpty {
                // JWE's OAEP label is empty: a ciphertext made with another label never decrypts.
                tally.total += 1
                if output == nil { tally.refusedByConstruction += 1 } else { tally.wrong.append("\(label): decrypted with a label") }
                return
            }
            switch result(test) {
            case "valid": tally.record(label, ok: output == hex(test, "msg"), why: "valid but \(output == nil ? "refused" : "wrong plaintext")")
            default: tally.record(label, ok: output == nil, why: "invalid but decrypted")
            }
        }
        return tally
    }

    @Test(
        "RSA-OAEP (SHA-1) and RSA-OAEP-256 decryption",
        arguments: [
            ("rsa_oaep_2048_sha1_mgf1sha1_test.json", false),
            ("rsa_oaep_2048_sha256_mgf1sha256_test.json", true),
            ("rsa_oaep_3072_sha256_mgf1sha256_test.json", true),
        ])
    func rsaOAEP(_ file: String, _ sha256: Bool) throws {
        let tally = try Self.oaep(file, sha256: sha256)
        print("wycheproof \(file): \(tally)")
        #expect(tally.total > 0 && tally.wrong.isEmpty, "\(tally.wrong.joined(separator: "\n"))")
    }

    // MARK: ECDH on the NIST curves

    static func ecdh(_ file: String, curve: JWK.Curve) throws -> Tally {
        var tally = Tally()
        try forEachTest(file) { _, test, label in
            let expected = result(test)
            var d = hex(test, "private")
            while d.count > curve.coordinateSize, d.first == 0 { d.removeFirst() }
            let privateKey = try KeyBuilder.fromData(type: "EC", isPrivate: true, params: [.utf8("group", curve.openSSLName), .bigNumber("priv", d)])
            var compressed = false
            let shared: [UInt8]?
            do {
                // The peer key as an epk header would carry it: kty EC, crv, x, y.
                guard case .ec(let peerCurve, let point?, nil) = try PEMKeyReader.read(hex(test, "public"), format: .publicKey) else {
                    throw JOSEError(.invalidKey, "not an EC public key")
                }
                let size = peerCurve.coordinateSize
                guard point.count == 1 + 2 * size, point.first == 0x04 else {
                    compressed = true
                    throw JOSEError(.invalidKey, "not an uncompressed point")
                }
                var epk = JSONObject()
                epk["kty"] = .string("EC")
                epk["crv"] = .string(peerCurve.rawValue)
                epk["x"] = .string(Base64URL.encode(Array(point[1...size])))
                epk["y"] = .string(Base64URL.encode(Array(point[(1 + size)...])))
                let peer = try JWK(jsonObject: epk)
                guard peer.keyType == .ec(curve), let peerKey = peer.evpKey else { throw JOSEError(.invalidKey, "another curve") }
                shared = try ECDHES.sharedSecret(privateKey: privateKey, peer: peerKey)
            } catch {
                shared = nil
            }
            switch expected {
            case "valid":
                if shared == nil, compressed { tally.total += 1; tally.refusedByConstruction += 1; return }
                tally.record(label, ok: shared == hex(test, "shared"), why: "valid but \(shared == nil ? "refused" : "wrong secret")")
            case "invalid":
                tally.record(label, ok: shared == nil, why: "invalid public key accepted")
            default:
                tally.record(label, ok: shared == nil || shared == hex(test, "shared"), why: "acceptable but wrong secret")
            }
        }
        return tally
    }

    @Test(
        "ECDH on P-256, P-384, P-521, invalid-curve and wrong-point public keys refused",
        arguments: [
            ("ecdh_secp256r1_test.json", JWK.Curve.p256), ("ecdh_secp384r1_test.json", .p384), ("ecdh_secp521r1_test.json", .p521),
        ])
    func ecdh(_ file: String, _ curve: JWK.Curve) throws {
        let tally = try Self.ecdh(file, curve: curve)
        print("wycheproof \(file): \(tally)")
        #expect(tally.total > 0 && tally.wrong.isEmpty, "\(tally.wrong.joined(separator: "\n"))")
    }

    // MARK: X25519

    @Test("X25519 (through the OKP JWK path), every all-zero shared secret refused")
    func x25519() throws {
        var tally = Tally()
        var zeroRefused = 0, zeroTotal = 0
        try Self.forEachTest("x25519_test.json") { _, test, label in
            let privateKey = try JWK.makeOctetKeyPair(.x25519, publicKey: nil, privateKey: Self.hex(test, "private"))
            let expected = Self.hex(test, "shared")
            let shared: [UInt8]?
            do {
                var epk = JSONObject()
                epk["kty"] = .string("OKP")
                epk["crv"] = .string("X25519")
                epk["x"] = .string(Base64URL.encode(Self.hex(test, "public")))
                let peer = try JWK(jsonObject: epk)
                guard let peerKey = peer.evpKey, let own = privateKey.evpKey else { throw JOSEError(.invalidKey, "no key") }
                shared = try ECDHES.sharedSecret(privateKey: own, peer: peerKey)
            } catch {
                shared = nil
            }
            if expected.allSatisfy({ $0 == 0 }) {
                zeroTotal += 1
                if shared == nil { zeroRefused += 1 }
                tally.total += 1
                if shared == nil { tally.refusedByConstruction += 1 } else { tally.wrong.append("\(label): all-zero secret accepted") }
                return
            }
            switch Self.result(test) {
            case "valid": tally.record(label, ok: shared == expected, why: "valid but \(shared == nil ? "refused" : "wrong secret")")
            case "invalid": tally.record(label, ok: shared == nil, why: "invalid but accepted")
            default: tally.record(label, ok: shared == nil || shared == expected, why: "acceptable but wrong secret")
            }
        }
        print("wycheproof x25519_test.json: \(tally); all-zero shared secrets refused: \(zeroRefused)/\(zeroTotal)")
        #expect(tally.total == 518)
        #expect(zeroTotal > 0 && zeroRefused == zeroTotal)
        #expect(tally.wrong.isEmpty, "\(tally.wrong.joined(separator: "\n"))")
    }

    // MARK: AES key wrap

    @Test("AES key wrap (A128KW, A192KW, A256KW)")
    func aesKeyWrap() throws {
        var tally = Tally()
        try Self.forEachTest("aes_wrap_test.json") { _, test, label in
            let key = Self.hex(test, "key"), msg = Self.hex(test, "msg"), ct = Self.hex(test, "ct")
            let unwrapped = AESKeyWrap.unwrap(ct, kek: key)
            switch Self.result(test) {
            case "valid":
                let wrapped = try? AESKeyWrap.wrap(msg, kek: key)
                tally.record(label, ok: unwrapped == msg && wrapped == ct, why: "valid but unwrap \(unwrapped == msg), wrap \(wrapped == ct)")
            case "invalid":
                tally.record(label, ok: unwrapped == nil, why: "invalid but unwrapped")
            default:
                tally.record(label, ok: unwrapped == nil || unwrapped == msg, why: "acceptable but wrong key")
            }
        }
        print("wycheproof aes_wrap_test.json: \(tally)")
        #expect(tally.total == 165)
        #expect(tally.wrong.isEmpty, "\(tally.wrong.joined(separator: "\n"))")
    }

    // MARK: AES-GCM

    @Test("AES-GCM (A128GCM, A192GCM, A256GCM; A*GCMKW); other IV and tag sizes refused")
    func aesGCM() throws {
        var tally = Tally()
        try Self.forEachTest("aes_gcm_test.json") { group, test, label in
            let key = Self.hex(test, "key"), iv = Self.hex(test, "iv"), aad = Self.hex(test, "aad")
            let msg = Self.hex(test, "msg"), ct = Self.hex(test, "ct"), tag = Self.hex(test, "tag")
            guard let encryption = [JWEContentEncryption.a128GCM, .a192GCM, .a256GCM].first(where: { $0.keyLength == key.count }) else {
                tally.record(label, ok: false, why: "no GCM for a key of \(key.count) bytes")
                return
            }
            let plaintext = try? ContentCipher.decrypt(ct, key: key, iv: iv, aad: aad, tag: tag, encryption: encryption)
            let jweShaped = group["ivSize"]?.int64Value == 96 && group["tagSize"]?.int64Value == 128
            guard jweShaped else {
                tally.total += 1
                if plaintext == nil { tally.refusedByConstruction += 1 } else { tally.wrong.append("\(label): non-JWE IV or tag size accepted") }
                return
            }
            if Self.result(test) == "valid" {
                let sealed = try? ContentCipher.encrypt(msg, key: key, iv: iv, aad: aad, encryption: encryption)
                tally.record(label, ok: plaintext == msg && sealed?.ciphertext == ct && sealed?.tag == tag, why: "valid but failed")
            } else {
                tally.record(label, ok: plaintext == nil, why: "invalid but decrypted")
            }
        }
        print("wycheproof aes_gcm_test.json: \(tally)")
        #expect(tally.total == 316)
        #expect(tally.wrong.isEmpty, "\(tally.wrong.joined(separator: "\n"))")
    }

    // MARK: AES-CBC

    @Test("AES-CBC with PKCS #7 padding (the CBC half of A*CBC-HS*)")
    func aesCBC() throws {
        var tally = Tally()
        try Self.forEachTest("aes_cbc_pkcs5_test.json") { _, test, label in
            let key = Self.hex(test, "key"), iv = Self.hex(test, "iv"), msg = Self.hex(test, "msg"), ct = Self.hex(test, "ct")
            let plaintext = try? ContentCipher.cbc(encrypt: false, input: ct, key: key, iv: iv)
            if Self.result(test) == "valid" {
                let encrypted = try? ContentCipher.cbc(encrypt: true, input: msg, key: key, iv: iv)
                tally.record(label, ok: plaintext == msg && encrypted == ct, why: "valid but failed")
            } else {
                tally.record(label, ok: plaintext == nil, why: "invalid but decrypted")
            }
        }
        print("wycheproof aes_cbc_pkcs5_test.json: \(tally)")
        #expect(tally.total == 216)
        #expect(tally.wrong.isEmpty, "\(tally.wrong.joined(separator: "\n"))")
    }
}
