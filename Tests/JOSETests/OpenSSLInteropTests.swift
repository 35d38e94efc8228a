import Foundation
import Testing

@testable import JOSE

/// Signatures made here verify with the `openssl` command line, and
/// signatures made by `openssl` verify here.
@Suite("Interop: the openssl command line", .enabled(if: Tool.hasOpenSSL, "needs the openssl command line"))
struct OpenSSLInteropTests {
    struct Setup {
        var privatePEM: String
        var publicPEM: String
    }

    static func setup(_ algorithm: JWSAlgorithm) -> Setup? {
        switch algorithm.family {
        case .rsaPKCS1: return Setup(privatePEM: "rsa2048.pem", publicPEM: "rsa2048.pub.pem")
        case .rsaPSS: return Setup(privatePEM: "rsa3072.pem", publicPEM: "rsa3072.pub.pem")
        case .ecdsa:
            let curve = ["ES256": "p256", "ES384": "p384", "ES512": "p521"][algorithm.rawValue]!
            return Setup(privatePEM: "\(curve).pem", publicPEM: "\(curve).pub.pem")
        case .eddsa: return Setup(privatePEM: "ed25519.pem", publicPEM: "ed25519.pub.pem")
        case .hmac, .mlDSA: return nil
        }
    }

    static func path(_ key: String) -> String { TestKeys.directory.appendingPathComponent(key).path }

    static func digestFlag(_ algorithm: JWSAlgorithm) -> String { "-" + (algorithm.digest?.rawValue.lowercased() ?? "") }

    static func pssOptions(_ algorithm: JWSAlgorithm) -> [String] {
        guard algorithm.family == .rsaPSS, let digest = algorithm.digest else { return [] }
        return [
            "-sigopt", "rsa_padding_mode:pss", "-sigopt", "rsa_pss_saltlen:\(digest.outputLength)",
            "-sigopt", "rsa_mgf1_md:\(digest.rawValue.lowercased())",
        ]
    }

    static func hmacHexKey() throws -> String {
        hexString(try Base64URL.decode(try #require(JSONParser.parseObject(Array(try TestKeys.text("hmac.jwk").utf8), what: "k")["k"]?.stringValue)))
    }

    /// DER `SEQUENCE { r, s }` from `r || s`, long-form length where needed (P-521).
    static func der(fromJWS signature: [UInt8]) -> [UInt8] {
        func integer(_ bytes: ArraySlice<UInt8>) -> [UInt8] {
            var value = Array(bytes.drop(while: { $0 == 0 }))
            if value.isEmpty { value = [0] }
            if value[0] & 0x80 != 0 { value.insert(0, at: 0) }
            return [0x02] + length(value.count) + value
        }
        func length(_ n: Int) -> [UInt8] { n < 0x80 ? [UInt8(n)] : [0x81, UInt8(n)] }
        let half = signature.count / 2
        let body = integer(signature[..<half]) + integer(signature[half...])
        return [0x30] + length(body.count) + body
    }

    /// Runs openssl's verification of `signature` over `input`; `true` when openssl accepts it.
    static func opensslVerifies(_ algorithm: JWSAlgorithm, input: [UInt8], signature: [UInt8], in directory: URL) async throws -> Bool {
        let inputPath = directory.appendingPathComponent("input").path
        let signaturePath = directory.appendingPathComponent("sig").path
        try Data(input).write(to: URL(fileURLWithPath: inputPath))
        guard let setup = setup(algorithm) else {
            let output = try await Tool.run("openssl", ["dgst", digestFlag(algorithm), "-mac", "HMAC", "-macopt", "hexkey:\(try hmacHexKey())", inputPath])
            guard output.status == 0, let hex = output.stdout.split(separator: "=").last?.trimmingCharacters(in: .whitespacesAndNewlines) else {
                throw JOSEError(.cryptoFailure, "openssl: \(output.stderr)")
            }
            return hex == hexString(signature)
        }
        let bytes = algorithm.family == .ecdsa ? der(fromJWS: signature) : signature
        try Data(bytes).write(to: URL(fileURLWithPath: signaturePath))
        let output: Tool.Output
        if algorithm.family == .eddsa {
            output = try await Tool.run(
                "openssl",
                [
                    "pkeyutl", "-verify", "-rawin", "-pubin", "-inkey", path(setup.publicPEM),
                    "-in", inputPath, "-sigfile", signaturePath,
                ])
        } else {
            output = try await Tool.run(
                "openssl",
                ["dgst", digestFlag(algorithm), "-verify", path(setup.publicPEM)] + pssOptions(algorithm)
                    + ["-signature", signaturePath, inputPath])
        }
        return output.status == 0
    }

    static func signingKey(_ algorithm: JWSAlgorithm) throws -> JWK {
        var key = try setup(algorithm).map { try TestKeys.pem($0.privatePEM) } ?? TestKeys.jwk("hmac.jwk")
        key.algorithm = nil
        return key
    }

    /// ML-DSA is left to MLDSATests: the openssl command line of OpenSSL 3.0 has no ML-DSA.
    static let algorithms = JWSAlgorithm.allCases.filter { $0.family != .mlDSA }

    @Test("a token signed here verifies with openssl, and a tampered one does not", arguments: algorithms)
    func signedHere(_ algorithm: JWSAlgorithm) async throws {
        let directory = try Tool.temporaryDirectory()
        defer { Tool.cleanUp(directory) }
        let token = try CompactJWS.sign(
            payload: #"{"iss":"https://accounts.example.com","sub":"alice"}"#, key: Self.signingKey(algorithm),
            algorithm: algorithm)
        let parts = token.split(separator: ".").map(String.init)
        let input = Array((parts[0] + "." + parts[1]).utf8)
        var signature = try Base64URL.decode(parts[2])
        #expect(try await Self.opensslVerifies(algorithm, input: input, signature: signature, in: directory))
        signature[signature.count / 3] ^= 0x01
        #expect(try await !Self.opensslVerifies(algorithm, input: input, signature: signature, in: directory))
    }

    @Test("a signature made by openssl verifies here", arguments: algorithms)
    func signedByOpenSSL(_ algorithm: JWSAlgorithm) async throws {
        let directory = try Tool.temporaryDirectory()
        defer { Tool.cleanUp(directory) }
        let input = Base64URL.encode(#"{"alg":"\#(algorithm.rawValue)","typ":"JWT"}"#) + "." + Base64URL.encode(#"{"sub":"bob"}"#)
        let inputPath = directory.appendingPathComponent("input").path
        let signaturePath = directory.appendingPathComponent("sig").path
        try Data(input.utf8).write(to: URL(fileURLWithPath: inputPath))
        let output: Tool.Output
        let verifier: JWK
        if let setup = Self.setup(algorithm) {
            if algorithm.family == .eddsa {
                output = try await Tool.run(
                    "openssl", ["pkeyutl", "-sign", "-rawin", "-inkey", Self.path(setup.privatePEM), "-in", inputPath, "-out", signaturePath])
            } else {
                output = try await Tool.run(
                    "openssl",
                    ["dgst", Self.digestFlag(algorithm), "-sign", Self.path(setup.privatePEM)] + Self.pssOptions(algorithm)
                        + ["-out", signaturePath, inputPath])
            }
            verifier = try TestKeys.pem(setup.publicPEM)
        } else {
            output = try await Tool.run(
                "openssl",
                [
                    "dgst", Self.digestFlag(algorithm), "-mac", "HMAC", "-macopt", "hexkey:\(try Self.hmacHexKey())",
                    "-binary", "-out", signaturePath, inputPath,
                ])
            verifier = try Self.signingKey(algorithm)
        }
        try #require(output.status == 0, "openssl: \(output.stderr)")
        var signature = try Self.bytes(signaturePath)
        if algorithm.family == .ecdsa, case .ec(let curve) = verifier.keyType {
            signature = try ECDSASignature.jws(fromDER: signature, curve: curve)
        }
        let jws = try CompactJWS(input + "." + Base64URL.encode(signature))
        try jws.verify(with: verifier)
        #expect(String(decoding: jws.payload, as: UTF8.self) == #"{"sub":"bob"}"#)
    }

    static func bytes(_ path: String) throws -> [UInt8] { try [UInt8](Data(contentsOf: URL(fileURLWithPath: path))) }
}
