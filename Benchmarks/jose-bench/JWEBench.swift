import CLibCrypto
import Foundation
import JOSE

/// `jose-bench --jwe`: decrypt + verify of an encrypted ID Token (a nested JWT: an ES256
/// JWS, encrypted with RSA-OAEP-256 + A256GCM or ECDH-ES + A256GCM to the client's key)
/// through the public API (`CompactJWE` then `JWT.verifyIgnoringIssuerAndAudience`)
/// against raw libcrypto doing the same operations with every key and context prepared
/// once per thread (key unwrap or ECDH + Concat KDF, AES-256-GCM, the ES256 verification):
///   JWE RSA-OAEP-256+A256GCM threads=1 api=… raw=… ratio=…
enum JWEBench {
    struct Fixture: @unchecked Sendable {
        let name: String
        let token: String
        let decryptionKey: JWK
        let verificationKey: JWK
        let privatePEM: String
        let isECDH: Bool
        let encryptedKey: [UInt8]
        let epkPoint: [UInt8]
        let iv: [UInt8]
        let ciphertext: [UInt8]
        let tag: [UInt8]
        let aad: [UInt8]
        let inner: BenchFixture

        init(algorithm: JWEKeyAlgorithm, keyName: String, keysDirectory: URL, payload: String) throws {
            func read(_ name: String) throws -> String { try String(contentsOf: keysDirectory.appendingPathComponent(name), encoding: .utf8) }
            inner = try BenchFixture(algorithm: .es256, keyName: "p256", keysDirectory: keysDirectory, payload: payload)
            verificationKey = inner.key
            privatePEM = try read("\(keyName).pem")
            decryptionKey = try JWK(pem: privatePEM)
            let recipient = try JWK(pem: read("\(keyName).pub.pem"))
            token = try CompactJWE.encrypt(inner.token, to: recipient, algorithm: algorithm, encryption: .a256GCM, contentType: "JWT")
            name = "\(algorithm.rawValue)+A256GCM"
            isECDH = algorithm == .ecdhES
            let parts = token.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
            aad = Array(parts[0].utf8)
            encryptedKey = try Base64URL.decode(parts[1])
            iv = try Base64URL.decode(parts[2])
            ciphertext = try Base64URL.decode(parts[3])
            tag = try Base64URL.decode(parts[4])
            if isECDH {
                let header = try JSONParser.parseObject(Base64URL.decode(parts[0]), what: "header")
                let epk = header["epk"]?.objectValue ?? JSONObject()
                epkPoint = [0x04] + (try Base64URL.decode(epk["x"]?.stringValue ?? "")) + (try Base64URL.decode(epk["y"]?.stringValue ?? ""))
            } else {
                epkPoint = []
            }
            _ = try makeAPILoop()()
            _ = try makeRawLoop()()
        }

        func makeAPILoop() -> () throws -> Bool {
            let token = self.token, decryptionKey = self.decryptionKey, verificationKey = self.verificationKey
            let options = JWTValidationPolicy(leeway: 60)
            return {
                let nested = try CompactJWE(token).decryptString(with: decryptionKey)
                let jwt = try JWT.verifyIgnoringIssuerAndAudience(nested, key: verificationKey, validation: options)
                return try jwt.claims.subject != nil
            }
        }

        func makeRawLoop() throws -> () throws -> Bool {
            let privateKey = try loadPrivateKey(privatePEM)
            let keyHolder = ContextHolder(privateKey) { EVP_PKEY_free($0) }
            guard let cipher = EVP_CIPHER_fetch(nil, "AES-256-GCM", nil), let cipherContext = EVP_CIPHER_CTX_new() else {
                throw BenchError.libcrypto("AES-256-GCM")
            }
            let cipherHolder = ContextHolder(cipher) { EVP_CIPHER_free($0) }
            let cipherContextHolder = ContextHolder(cipherContext) { EVP_CIPHER_CTX_free($0) }
            guard let context = EVP_PKEY_CTX_new_from_pkey(nil, privateKey, nil) else { throw BenchError.libcrypto("context") }
            let contextHolder = ContextHolder(context) { EVP_PKEY_CTX_free($0) }
            let sha256 = EVP_MD_fetch(nil, "SHA256", nil)
            guard let sha256 else { throw BenchError.libcrypto("SHA256") }
            let mdHolder = ContextHolder(sha256) { EVP_MD_free($0) }
            if isECDH {
                _ = try JWEBench.ecdh(privateKey: privateKey, point: epkPoint)
            } else {
                guard EVP_PKEY_decrypt_init(context) == 1, EVP_PKEY_CTX_set_rsa_padding(context, RSA_PKCS1_OAEP_PADDING) == 1,
                    EVP_PKEY_CTX_set_rsa_oaep_md(context, sha256) == 1, EVP_PKEY_CTX_set_rsa_mgf1_md(context, sha256) == 1
                else {
                    throw BenchError.libcrypto("OAEP init")
                }
            }
            let verify = try inner.makeRawLoop()
            let isECDH = self.isECDH, epkPoint = self.epkPoint, encryptedKey = self.encryptedKey, iv = self.iv, ciphertext = self.ciphertext, aad = self.aad
            var tag = self.tag
            // Concat KDF OtherInfo for ECDH-ES with A256GCM, 256 bits (RFC 7518 §4.6.2).
            let otherInfo: [UInt8] = [0, 0, 0, 7] + Array("A256GCM".utf8) + [0, 0, 0, 0] + [0, 0, 0, 0] + [0, 0, 1, 0]
            return {
                _ = (keyHolder, cipherHolder, mdHolder)
                var cek = [UInt8](repeating: 0, count: 512)
                var length = cek.count
                if isECDH {
                    // Each token carries a new epk: import it, check it is on the curve, agree.
                    let z = try JWEBench.ecdh(privateKey: keyHolder.pointer, point: epkPoint)
                    let input: [UInt8] = [0, 0, 0, 1] + z + otherInfo
                    var digestLength: UInt32 = 0
                    guard EVP_Digest(input, input.count, &cek, &digestLength, mdHolder.pointer, nil) == 1 else { throw BenchError.libcrypto("KDF") }
                    length = Int(digestLength)
                } else {
                    guard EVP_PKEY_decrypt(contextHolder.pointer, &cek, &length, encryptedKey, encryptedKey.count) == 1, length == 32 else {
                        throw BenchError.libcrypto("OAEP")
                    }
                }
                let gcm = cipherContextHolder.pointer
                var out = [UInt8](repeating: 0, count: ciphertext.count + 16)
                var outLength: Int32 = 0, finalLength: Int32 = 0
                guard EVP_CipherInit_ex2(gcm, cipherHolder.pointer, cek, iv, 0, nil) == 1,
                    EVP_CipherUpdate(gcm, nil, &outLength, aad, Int32(aad.count)) == 1,
                    EVP_CipherUpdate(gcm, &out, &outLength, ciphertext, Int32(ciphertext.count)) == 1,
                    EVP_CIPHER_CTX_ctrl(gcm, EVP_CTRL_AEAD_SET_TAG, 16, &tag) == 1
                else { throw BenchError.libcrypto("GCM") }
                let ok = out.withUnsafeMutableBufferPointer { EVP_CipherFinal_ex(gcm, $0.baseAddress! + Int(outLength), &finalLength) }
                guard ok == 1 else { throw BenchError.libcrypto("GCM tag") }
                return try verify()
            }
        }
    }

    /// ECDH with a P-256 peer point: import, quick public check (on the curve), derive.
    static func ecdh(privateKey: OpaquePointer, point: [UInt8]) throws -> [UInt8] {
        let group = Array("prime256v1".utf8CString)
        var point = point
        let peer: OpaquePointer? = group.withUnsafeBufferPointer { groupBuffer in
            point.withUnsafeMutableBytes { pointBuffer in
                var params = [
                    OSSL_PARAM_construct_utf8_string(("group" as StaticString).cString, UnsafeMutablePointer(mutating: groupBuffer.baseAddress), 0),
                    OSSL_PARAM_construct_octet_string(("pub" as StaticString).cString, pointBuffer.baseAddress, pointBuffer.count),
                    OSSL_PARAM_construct_end(),
                ]
                guard let importContext = EVP_PKEY_CTX_new_from_name(nil, "EC", nil) else { return nil }
                defer { EVP_PKEY_CTX_free(importContext) }
                var key: OpaquePointer? = nil
                guard EVP_PKEY_fromdata_init(importContext) == 1,
                    EVP_PKEY_fromdata(importContext, &key, jose_selection_public_key(), &params) == 1
                else { return nil }
                return key
            }
        }
        guard let peer else { throw BenchError.libcrypto("import the epk") }
        defer { EVP_PKEY_free(peer) }
        guard let check = EVP_PKEY_CTX_new_from_pkey(nil, peer, nil) else { throw BenchError.libcrypto("check context") }
        defer { EVP_PKEY_CTX_free(check) }
        guard EVP_PKEY_public_check_quick(check) == 1 else { throw BenchError.libcrypto("epk check") }
        guard let context = EVP_PKEY_CTX_new_from_pkey(nil, privateKey, nil) else { throw BenchError.libcrypto("derive context") }
        defer { EVP_PKEY_CTX_free(context) }
        var z = [UInt8](repeating: 0, count: 32)
        var length = z.count
        guard EVP_PKEY_derive_init(context) == 1, EVP_PKEY_derive_set_peer_ex(context, peer, 0) == 1,
            EVP_PKEY_derive(context, &z, &length) == 1
        else { throw BenchError.libcrypto("derive") }
        return z
    }

    static func loadPrivateKey(_ pem: String) throws -> OpaquePointer {
        let bytes = Array(pem.utf8)
        let key: OpaquePointer? = bytes.withUnsafeBytes { raw in
            guard let bio = BIO_new_mem_buf(raw.baseAddress, Int32(raw.count)) else { return nil }
            defer { BIO_free(bio) }
            return PEM_read_bio_PrivateKey(bio, nil, nil, nil)
        }
        guard let key else { throw BenchError.libcrypto("PEM_read_bio_PrivateKey") }
        return key
    }

    static func run(keysDirectory: URL, payload: String, seconds: Double, rounds: Int) throws {
        let fixtures = [
            try Fixture(algorithm: .rsaOAEP256, keyName: "rsa2048", keysDirectory: keysDirectory, payload: payload),
            try Fixture(algorithm: .ecdhES, keyName: "p256", keysDirectory: keysDirectory, payload: payload),
        ]
        for fixture in fixtures {
            for threads in [1, 2] {
                var apiRates: [Double] = [], rawRates: [Double] = []
                for _ in 0..<rounds {
                    rawRates.append(try Runner.rate(threads: threads, seconds: seconds) { try fixture.makeRawLoop() })
                    apiRates.append(try Runner.rate(threads: threads, seconds: seconds) { fixture.makeAPILoop() })
                }
                let ratio = Runner.median(zip(apiRates, rawRates).map { $0 / $1 })
                print(
                    "JWE \(fixture.name) threads=\(threads) api=\(Int(Runner.median(apiRates))) raw=\(Int(Runner.median(rawRates))) ratio=\(String(format: "%.2f", ratio))"
                )
                fflush(nil)
            }
        }
    }
}
