import Foundation
import Testing

@testable import JOSE

@Suite("Key generation and private export")
struct KeyGenerationTests {
    static let specs: [JWK.GenerationSpec] = [.ec(.p256), .ec(.p384), .ec(.p521), .ed25519, .rsa(bits: 2048)]

    static func algorithm(for spec: JWK.GenerationSpec) -> JWSAlgorithm {
        switch spec {
        case .ec(let curve): return curve.algorithm
        case .ed25519, .x25519: return .eddsa
        case .rsa: return .ps256
        case .mlDSA(let set): return set.algorithm
        }
    }

    @Test("a generated key signs, and its public half, private JWK and PEMs round-trip", arguments: specs)
    func roundTrips(_ spec: JWK.GenerationSpec) throws {
        let key = try JWK.generate(spec)
        let algorithm = Self.algorithm(for: spec)
        #expect(key.isPrivate)
        #expect(key.keyType.description == (spec == .rsa(bits: 2048) ? "RSA" : spec.description))
        if case .rsa(let bits) = spec { #expect(key.sizeInBits == bits) }
        let token = try CompactJWS.sign(payload: #"{"sub":"alice"}"#, key: key, algorithm: algorithm)
        try CompactJWS(token).verify(with: key.publicKey)

        // Private JWK: back through the parser, same key (it signs for the original public key).
        let privateJSON = try key.privateJWKString()
        let reparsed = try JWK(json: privateJSON)
        #expect(reparsed.isPrivate)
        #expect(reparsed.thumbprint() == key.thumbprint())
        try CompactJWS(try CompactJWS.sign(payload: "x", key: reparsed, algorithm: algorithm)).verify(with: key.publicKey)

        // PKCS#8 and SPKI PEM through the PEM reader.
        let privatePEM = try key.privateKeyPEM()
        #expect(privatePEM.hasPrefix("-----BEGIN PRIVATE KEY-----"))
        let fromPEM = try JWK(pem: privatePEM)
        #expect(fromPEM.isPrivate && fromPEM.thumbprint() == key.thumbprint())
        try CompactJWS(try CompactJWS.sign(payload: "y", key: fromPEM, algorithm: algorithm)).verify(with: key.publicKey)
        let publicPEM = try key.publicKeyPEM()
        #expect(publicPEM.hasPrefix("-----BEGIN PUBLIC KEY-----"))
        let publicFromPEM = try JWK(pem: publicPEM)
        #expect(!publicFromPEM.isPrivate && publicFromPEM.publicJWK == key.publicJWK)

        // The public JWK carries no private member.
        for member in ["d", "p", "q", "dp", "dq", "qi", "k"] { #expect(key.publicJWK[member] == nil) }
        #expect(try JWK(json: key.publicJWKString).isPrivate == false)
    }

    @Test("two generated keys differ")
    func fresh() throws {
        #expect(try JWK.generate(.ec(.p256)).thumbprint() != JWK.generate(.ec(.p256)).thumbprint())
        #expect(try JWK.generate(.ed25519).thumbprint() != JWK.generate(.ed25519).thumbprint())
    }

    @Test("RSA below 2048 bits is refused as weak, above 8192 as unsupported")
    func rsaBounds() {
        expectCode(.weakKey) { _ = try JWK.generate(.rsa(bits: 1024)) }
        expectCode(.weakKey) { _ = try JWK.generate(.rsa(bits: 2047)) }
        expectCode(.unsupportedKey) { _ = try JWK.generate(.rsa(bits: 16384)) }
    }

    @Test("public keys have no private export; oct has no PEM")
    func exportRefusals() throws {
        let key = try JWK.generate(.ec(.p256))
        expectCode(.invalidKey) { _ = try key.publicKey.privateJWK() }
        expectCode(.invalidKey) { _ = try key.publicKey.privateKeyPEM() }
        let secret = try TestKeys.jwk("hmac.jwk")
        expectCode(.unsupportedKey) { _ = try secret.publicKeyPEM() }
        #expect(try secret.privateJWK()["k"] == JSONParser.parseObject(Array(TestKeys.text("hmac.jwk").utf8), what: "k")["k"])
    }

    @Test("the private JWK of a key file gives back the file's private members", arguments: ["rsa2048", "p384", "ed25519"])
    func fileKeys(_ name: String) throws {
        let file = try JSONParser.parseObject(Array(TestKeys.text("\(name).jwk").utf8), what: "key")
        let exported = try TestKeys.pem("\(name).pem").privateJWK()
        for member in ["d", "p", "q", "dp", "dq", "qi", "x", "y", "n", "e"] where file[member] != nil {
            #expect(exported[member] == file[member], "member \(member)")
        }
    }

    @Test("description, debugDescription and dump of a generated key show no private material", arguments: specs)
    func redaction(_ spec: JWK.GenerationSpec) throws {
        let key = try JWK.generate(spec)
        let d = try #require(try key.privateJWK()["d"]?.stringValue)
        var dumped = ""
        dump(key, to: &dumped)
        for text in [key.description, key.debugDescription, String(describing: key), String(reflecting: key), dumped] {
            #expect(!text.contains(d))
            #expect(!text.contains(String(d.prefix(12))))
        }
    }
}

@Suite("Key generation: interop with the openssl command line", .enabled(if: Tool.hasOpenSSL, "needs the openssl command line"))
struct KeyGenerationOpenSSLTests {
    @Test(
        "openssl accepts the generated PKCS#8 key, derives the same SPKI, and signatures cross both ways",
        arguments: [JWK.GenerationSpec.ec(.p256), .ec(.p384), .ed25519, .rsa(bits: 2048)])
    func interop(_ spec: JWK.GenerationSpec) async throws {
        let directory = try Tool.temporaryDirectory()
        defer { Tool.cleanUp(directory) }
        let key = try JWK.generate(spec)
        let privatePath = directory.appendingPathComponent("key.pem").path
        let publicPath = directory.appendingPathComponent("pub.pem").path
        try Data(try key.privateKeyPEM().utf8).write(to: URL(fileURLWithPath: privatePath))
        try Data(try key.publicKeyPEM().utf8).write(to: URL(fileURLWithPath: publicPath))

        let check = try await Tool.run("openssl", ["pkey", "-in", privatePath, "-check", "-noout"])
        #expect(check.status == 0, "openssl pkey -check: \(check.stderr)")
        let derived = try await Tool.run("openssl", ["pkey", "-in", privatePath, "-pubout"])
        #expect(derived.status == 0)
        #expect(derived.stdout == (try key.publicKeyPEM()))

        // openssl signs with the generated private key; the exported public key verifies here.
        let algorithm = KeyGenerationTests.algorithm(for: spec)
        let input = Base64URL.encode(#"{"alg":"\#(algorithm.rawValue)"}"#) + "." + Base64URL.encode(#"{"sub":"bob"}"#)
        let inputPath = directory.appendingPathComponent("input").path
        let signaturePath = directory.appendingPathComponent("sig").path
        try Data(input.utf8).write(to: URL(fileURLWithPath: inputPath))
        let signed: Tool.Output
        if algorithm == .eddsa {
            signed = try await Tool.run("openssl", ["pkeyutl", "-sign", "-rawin", "-inkey", privatePath, "-in", inputPath, "-out", signaturePath])
        } else {
            signed = try await Tool.run(
                "openssl",
                ["dgst", OpenSSLInteropTests.digestFlag(algorithm), "-sign", privatePath]
                    + OpenSSLInteropTests.pssOptions(algorithm) + ["-out", signaturePath, inputPath])
        }
        try #require(signed.status == 0, "openssl: \(signed.stderr)")
        var signature = try OpenSSLInteropTests.bytes(signaturePath)
        if case .ec(let curve) = spec { signature = try ECDSASignature.jws(fromDER: signature, curve: curve) }
        try CompactJWS(input + "." + Base64URL.encode(signature)).verify(with: try JWK(pem: key.publicKeyPEM()))

        // A signature made here verifies with openssl and the exported SPKI.
        let token = try CompactJWS.sign(payload: "hello", key: key, algorithm: algorithm)
        let parts = token.split(separator: ".").map(String.init)
        var ours = try Base64URL.decode(parts[2])
        if case .ec = spec { ours = OpenSSLInteropTests.der(fromJWS: ours) }
        try Data(Array((parts[0] + "." + parts[1]).utf8)).write(to: URL(fileURLWithPath: inputPath))
        try Data(ours).write(to: URL(fileURLWithPath: signaturePath))
        let verified: Tool.Output
        if algorithm == .eddsa {
            verified = try await Tool.run(
                "openssl", ["pkeyutl", "-verify", "-rawin", "-pubin", "-inkey", publicPath, "-in", inputPath, "-sigfile", signaturePath])
        } else {
            verified = try await Tool.run(
                "openssl",
                ["dgst", OpenSSLInteropTests.digestFlag(algorithm), "-verify", publicPath]
                    + OpenSSLInteropTests.pssOptions(algorithm) + ["-signature", signaturePath, inputPath])
        }
        #expect(verified.status == 0, "openssl verify: \(verified.stdout) \(verified.stderr)")
    }
}
