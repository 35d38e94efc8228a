import CLibCrypto
import Foundation
import JOSE

enum BenchError: Error { case libcrypto(String) }

func loadPublicKey(_ pem: String) throws -> OpaquePointer {
    let bytes = Array(pem.utf8)
    let key: OpaquePointer? = bytes.withUnsafeBytes { raw in
        guard let bio = BIO_new_mem_buf(raw.baseAddress, Int32(raw.count)) else { return nil }
        defer { BIO_free(bio) }
        return PEM_read_bio_PUBKEY(bio, nil, nil, nil)
    }
    guard let key else { throw BenchError.libcrypto("PEM_read_bio_PUBKEY") }
    return key
}

/// RSA / ECDSA: hash with a fetched EVP_MD, EVP_PKEY_verify on a context
/// initialised once with padding and digest.
final class RawDigestVerify: @unchecked Sendable {
    let key: OpaquePointer
    let md: OpaquePointer
    let algorithm: JWSAlgorithm
    let input: [UInt8]
    let signature: [UInt8]

    init(pem: String, algorithm: JWSAlgorithm, input: [UInt8], jwsSignature: [UInt8]) throws {
        key = try loadPublicKey(pem)
        guard let digest = algorithm.digest, let md = EVP_MD_fetch(nil, digest.rawValue, nil) else { throw BenchError.libcrypto("EVP_MD_fetch") }
        self.md = md
        self.algorithm = algorithm
        self.input = input
        // ECDSA: libcrypto wants DER; convert once, outside the timed loop.
        signature = algorithm.family == .ecdsa ? RawDigestVerify.der(jwsSignature) : jwsSignature
    }

    deinit { EVP_PKEY_free(key); EVP_MD_free(md) }

    func loop() throws -> () throws -> Bool {
        guard let context = EVP_PKEY_CTX_new_from_pkey(nil, key, nil), EVP_PKEY_verify_init(context) == 1,
            EVP_PKEY_CTX_set_signature_md(context, md) == 1
        else { throw BenchError.libcrypto("verify init") }
        if algorithm.family == .rsaPKCS1 {
            EVP_PKEY_CTX_set_rsa_padding(context, RSA_PKCS1_PADDING)
        } else if algorithm.family == .rsaPSS {
            EVP_PKEY_CTX_set_rsa_padding(context, RSA_PKCS1_PSS_PADDING)
            EVP_PKEY_CTX_set_rsa_mgf1_md(context, md)
            EVP_PKEY_CTX_set_rsa_pss_saltlen(context, Int32(EVP_MD_get_size(md)))
        }
        let holder = ContextHolder(context) { EVP_PKEY_CTX_free($0) }
        let md = self.md, input = self.input, signature = self.signature
        return {
            var hash = [UInt8](repeating: 0, count: 64)
            var length: UInt32 = 0
            _ = hash.withUnsafeMutableBufferPointer { EVP_Digest(input, input.count, $0.baseAddress, &length, md, nil) }
            let ok = EVP_PKEY_verify(holder.pointer, signature, signature.count, hash, Int(length))
            guard ok == 1 else { throw BenchError.libcrypto("EVP_PKEY_verify") }
            return true
        }
    }

    static func der(_ jws: [UInt8]) -> [UInt8] {
        let half = jws.count / 2
        func integer(_ bytes: ArraySlice<UInt8>) -> [UInt8] {
            var value = Array(bytes.drop(while: { $0 == 0 }))
            if value.isEmpty { value = [0] }
            if value[0] & 0x80 != 0 { value.insert(0, at: 0) }
            return [0x02, UInt8(value.count)] + value
        }
        let body = integer(jws[0..<half]) + integer(jws[half...])
        return body.count < 0x80 ? [0x30, UInt8(body.count)] + body : [0x30, 0x81, UInt8(body.count)] + body
    }
}

/// Ed25519: one EVP_DigestVerify context initialised once.
final class RawEdDSA: @unchecked Sendable {
    let key: OpaquePointer
    let input: [UInt8]
    let signature: [UInt8]

    init(pem: String, input: [UInt8], signature: [UInt8]) throws {
        key = try loadPublicKey(pem)
        self.input = input
        self.signature = signature
    }
    deinit { EVP_PKEY_free(key) }

    func loop() throws -> () throws -> Bool {
        guard let context = EVP_MD_CTX_new(), EVP_DigestVerifyInit_ex(context, nil, nil, nil, nil, key, nil) == 1 else {
            throw BenchError.libcrypto("EVP_DigestVerifyInit_ex")
        }
        let holder = ContextHolder(context) { EVP_MD_CTX_free($0) }
        let input = self.input, signature = self.signature
        return {
            guard EVP_DigestVerify(holder.pointer, signature, signature.count, input, input.count) == 1 else {
                throw BenchError.libcrypto("EVP_DigestVerify")
            }
            return true
        }
    }
}

/// HMAC: a keyed EVP_MAC_CTX re-initialised per token.
final class RawHMAC: @unchecked Sendable {
    let secret: [UInt8]
    let input: [UInt8]
    let tag: [UInt8]

    init(secret: [UInt8], input: [UInt8], tag: [UInt8]) throws {
        self.secret = secret
        self.input = input
        self.tag = tag
    }

    func loop() throws -> () throws -> Bool {
        guard let mac = EVP_MAC_fetch(nil, "HMAC", nil), let context = EVP_MAC_CTX_new(mac) else { throw BenchError.libcrypto("EVP_MAC") }
        EVP_MAC_free(mac)
        let ok = "SHA256".withCString { name -> Int32 in
            var params = [
                OSSL_PARAM_construct_utf8_string(("digest" as StaticString).cString, UnsafeMutablePointer(mutating: name), 0), OSSL_PARAM_construct_end(),
            ]
            return EVP_MAC_init(context, secret, secret.count, &params)
        }
        guard ok == 1 else { throw BenchError.libcrypto("EVP_MAC_init") }
        let holder = ContextHolder(context) { EVP_MAC_CTX_free($0) }
        let input = self.input, tag = self.tag
        return {
            var out = [UInt8](repeating: 0, count: 64)
            var length = 0
            guard EVP_MAC_init(holder.pointer, nil, 0, nil) == 1, EVP_MAC_update(holder.pointer, input, input.count) == 1,
                EVP_MAC_final(holder.pointer, &out, &length, 64) == 1, CRYPTO_memcmp(out, tag, length) == 0
            else {
                throw BenchError.libcrypto("HMAC")
            }
            return true
        }
    }
}

/// Frees a per-thread libcrypto context when the loop closure is released.
final class ContextHolder: @unchecked Sendable {
    let pointer: OpaquePointer
    let free: (OpaquePointer) -> Void
    init(_ pointer: OpaquePointer, free: @escaping (OpaquePointer) -> Void) { self.pointer = pointer; self.free = free }
    deinit { free(pointer) }
}
