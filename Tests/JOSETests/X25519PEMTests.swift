import Foundation
import Testing

@_spi(Testing) @testable import JOSE

/// X25519 keys in PEM (RFC 8410): PKCS#8 `PRIVATE KEY` and SubjectPublicKeyInfo
/// `PUBLIC KEY`, as `openssl genpkey -algorithm X25519` writes them. They read into
/// `OKP` `X25519` JWKs for JWE `ECDH-ES`, are written back byte for byte, never sign,
/// and malformed variants are refused with the same strictness as Ed25519.
@Suite("PEM: X25519 keys (RFC 8410)")
struct X25519PEMTests {
    /// `openssl pkey -in Keys/x25519.pem -text -noout` when the key was made.
    static let privateBytes = hexBytes("90fd933ae8cd9f5bd657264cbd5bed0263a4fbb3aad8844a29c838cbf24c4973")
    static let publicBytes = hexBytes("62454743563a13f2bb08ebd0c68861f0ba35df01e1174328df93a744ff997c4f")

    static func der(_ file: String) throws -> [UInt8] { try DERKeyReaderTests.der(file) }
    static func pem(_ label: String, _ der: [UInt8]) -> String { DERKeyReaderTests.pem(label, der) }

    /// The `priv:` and `pub:` bytes of `openssl pkey -text -noout`.
    static func openSSLText(_ arguments: [String]) async throws -> (priv: [UInt8]?, pub: [UInt8]) {
        let output = try await Tool.run("openssl", ["pkey"] + arguments + ["-text", "-noout"])
        try #require(output.status == 0, "openssl pkey: \(output.stderr)")
        var sections: [String: String] = [:]
        var current: String?
        for line in output.stdout.split(separator: "\n") {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if trimmed == "priv:" || trimmed == "pub:" { current = String(trimmed.dropLast()); continue }
            if let name = current, line.hasPrefix(" ") { sections[name, default: ""] += trimmed.replacingOccurrences(of: ":", with: "") } else { current = nil }
        }
        #expect(output.stdout.hasPrefix("X25519 "), "\(output.stdout)")
        return (sections["priv"].map(hexBytes), hexBytes(try #require(sections["pub"])))
    }

    // MARK: Reading

    @Test("the openssl-made private and public PEMs read as the X25519 key openssl prints, and libcrypto's decoder agrees")
    func reads() throws {
        let key = try TestKeys.pem("x25519.pem")
        #expect(key.keyType == .x25519 && key.isPrivate && key.sizeInBits == 256)
        #expect(key.publicJWK["kty"]?.stringValue == "OKP" && key.publicJWK["crv"]?.stringValue == "X25519")
        #expect(key.publicJWK["x"]?.stringValue == Base64URL.encode(Self.publicBytes))
        #expect(try key.privateJWK()["d"]?.stringValue == Base64URL.encode(Self.privateBytes))
        #expect(key.use == nil && key.keyOperations == nil && key.algorithm == nil && key.keyID == nil)
        try DERKeyReaderTests.expectSameKey(TestKeys.text("x25519.pem"), "x25519.pub.jwk", isPrivate: true)
        try DERKeyReaderTests.expectSameKey(TestKeys.text("x25519.pub.pem"), "x25519.pub.jwk", isPrivate: false)
        let publicKey = try TestKeys.pem("x25519.pub.pem")
        #expect(publicKey.keyType == .x25519 && !publicKey.isPrivate)
        #expect(publicKey.publicJWK == key.publicJWK)
        let fromPrivate = try JWK(publicKeyFromPEM: TestKeys.text("x25519.pem"))
        #expect(!fromPrivate.isPrivate && fromPrivate.thumbprint() == key.thumbprint())
        // The file forms agree: key files (PEM, JWK) give the same key.
        #expect(try JWK.keys(fromFileText: TestKeys.text("x25519.pem")).first?.thumbprint() == (try TestKeys.jwk("x25519.jwk").thumbprint()))
    }

    @Test(
        "keys made now by openssl genpkey -algorithm X25519 read as openssl pkey -text prints them",
        .enabled(if: Tool.hasOpenSSL, "needs the openssl command line"))
    func freshOpenSSLKeys() async throws {
        let directory = try Tool.temporaryDirectory()
        defer { Tool.cleanUp(directory) }
        let path = directory.appendingPathComponent("x25519.pem").path, publicPath = directory.appendingPathComponent("x25519.pub.pem").path
        try await #require(try Tool.run("openssl", ["genpkey", "-algorithm", "X25519", "-out", path]).status == 0)
        try await #require(try Tool.run("openssl", ["pkey", "-in", path, "-pubout", "-out", publicPath]).status == 0)
        let printed = try await Self.openSSLText(["-in", path])
        let key = try JWK(pem: String(contentsOfFile: path, encoding: .utf8))
        #expect(try key.privateJWK()["d"]?.stringValue == printed.priv.map(Base64URL.encode))
        #expect(key.publicJWK["x"]?.stringValue == Base64URL.encode(printed.pub))
        let publicKey = try JWK(pem: String(contentsOfFile: publicPath, encoding: .utf8))
        #expect(publicKey.thumbprint() == key.thumbprint())
        // The committed fixture too.
        let fixture = try await Self.openSSLText(["-in", TestKeys.directory.appendingPathComponent("x25519.pem").path])
        #expect(fixture.priv == Self.privateBytes && fixture.pub == Self.publicBytes)
    }

    @Test("RFC 5958 OneAsymmetricKey with its publicKey [1] is read; a publicKey that does not match is refused")
    func oneAsymmetricKey() throws {
        try DERKeyReaderTests.expectSameKey(DERKeyReaderTests.oneAsymmetricKey("x25519.pem", "x25519.pub.pem"), "x25519.pub.jwk", isPrivate: true)
        let other = Self.publicBytes.map { $0 ^ 1 }
        expectCode(.invalidKey) { _ = try JWK(pem: DERKeyReaderTests.oneAsymmetricKey("x25519.pem", "x25519.pub.pem", publicKey: other)) }
        expectCode(.invalidKey) { _ = try JWK(pem: DERKeyReaderTests.oneAsymmetricKey("x25519.pem", "x25519.pub.pem", publicKey: Self.publicBytes + [0])) }
    }

    // MARK: Use

    @Test(
        "ECDH-ES with the PEM keys: encrypt to the public PEM, decrypt with the private PEM",
        arguments: [JWEKeyAlgorithm.ecdhES, .ecdhESA128KW, .ecdhESA256KW])
    func ecdhES(_ algorithm: JWEKeyAlgorithm) throws {
        let recipient = try TestKeys.pem("x25519.pub.pem"), key = try TestKeys.pem("x25519.pem")
        let token = try CompactJWE.encrypt("to a PEM key ✓", to: recipient, algorithm: algorithm, encryption: .a128GCM)
        let jwe = try CompactJWE(token)
        #expect(jwe.header.members["epk"]?.objectValue?["crv"]?.stringValue == "X25519")
        #expect(try jwe.decryptString(with: key) == "to a PEM key ✓")
        // The JWK file form of the same key (`alg: ECDH-ES`) decrypts it too, within its `alg`;
        // another X25519 key does not.
        let fileKey = try TestKeys.jwk("x25519.jwk")
        if algorithm == .ecdhES {
            #expect(try jwe.decryptString(with: fileKey) == "to a PEM key ✓")
        } else {
            expectCode(.keyAlgorithmMismatch) { _ = try jwe.decrypt(with: fileKey) }
        }
        expectCode(.decryptionFailed) { _ = try jwe.decrypt(with: try JWK.generate(.x25519)) }
        // use/key_ops rules are the JWK ones: `use: sig` or key_ops without derivation refuse it.
        var signing = key
        signing.use = "sig"
        expectCode(.keyUsageNotPermitted) { _ = try jwe.decrypt(with: signing) }
        var wrapOnly = key
        wrapOnly.keyOperations = ["encrypt"]
        expectCode(.keyUsageNotPermitted) { _ = try jwe.decrypt(with: wrapOnly) }
        var enc = key
        enc.use = "enc"
        enc.keyOperations = ["deriveKey"]
        #expect(try jwe.decryptString(with: enc) == "to a PEM key ✓")
    }

    @Test("an X25519 PEM key never signs or verifies, and JWS key selection refuses it", arguments: JWSAlgorithm.allCases)
    func neverSigns(_ algorithm: JWSAlgorithm) throws {
        let key = try TestKeys.pem("x25519.pem")
        #expect(key.admittedAlgorithms.isEmpty && !key.admits(algorithm))
        expectCode(.keyAlgorithmMismatch) { _ = try CompactJWS.sign(payload: "x", key: key, algorithm: algorithm) }
        // A token signed by a real key, checked against the X25519 key alone or in a set.
        let ed = try TestKeys.pem("ed25519.pem")
        let token = try CompactJWS(CompactJWS.sign(payload: "x", header: ["kid": .string("k")], key: ed, algorithm: .eddsa))
        expectCode(.keyAlgorithmMismatch) { try token.verify(with: key.publicKey) }
        var named = try TestKeys.pem("x25519.pub.pem")
        named.keyID = "k"
        // By kid: the set gives the key, which admits no JWS algorithm.
        expectCode(.keyAlgorithmMismatch) { _ = try token.verify(with: JWKSet(keys: [named])) }
        // With `use: enc` (as Keys/x25519.pub.jwk has) it is not even a candidate.
        named.use = "enc"
        expectCode(.keyUsageNotPermitted) { _ = try token.verify(with: JWKSet(keys: [named])) }
        // Without kid: no key in the set fits the algorithm.
        expectCode(.keyNotFound) { _ = try CompactJWS(CompactJWS.sign(payload: "x", key: ed, algorithm: .eddsa)).verify(with: JWKSet(keys: [named])) }
    }

    // MARK: Writing

    @Test("privateKeyPEM and publicKeyPEM give back the openssl files byte for byte, from the PEM and from the JWK")
    func writesOpenSSLBytes() throws {
        let privateText = try TestKeys.text("x25519.pem"), publicText = try TestKeys.text("x25519.pub.pem")
        for key in [try TestKeys.pem("x25519.pem"), try TestKeys.jwk("x25519.jwk")] {
            #expect(try key.privateKeyPEM() == privateText)
            #expect(try key.publicKeyPEM() == publicText)
            #expect(try key.publicKey.publicKeyPEM() == publicText)
        }
        expectCode(.invalidKey) { _ = try TestKeys.pem("x25519.pub.pem").privateKeyPEM() }
        let generated = try JWK.generate(.x25519)
        let again = try JWK(pem: generated.privateKeyPEM())
        #expect(again.thumbprint() == generated.thumbprint() && again.isPrivate)
        #expect(try again.privateJWK() == generated.privateJWK())
        #expect(try JWK(pem: generated.publicKeyPEM()).thumbprint() == generated.thumbprint())
    }

    @Test(
        "openssl reads what privateKeyPEM and publicKeyPEM write, and writes it back unchanged",
        .enabled(if: Tool.hasOpenSSL, "needs the openssl command line"))
    func openSSLReadsExports() async throws {
        let directory = try Tool.temporaryDirectory()
        defer { Tool.cleanUp(directory) }
        let key = try JWK.generate(.x25519)
        let path = directory.appendingPathComponent("ours.pem"), publicPath = directory.appendingPathComponent("ours.pub.pem")
        try Data(try key.privateKeyPEM().utf8).write(to: path)
        try Data(try key.publicKeyPEM().utf8).write(to: publicPath)
        let printed = try await Self.openSSLText(["-in", path.path])
        #expect(printed.priv.map(Base64URL.encode) == (try key.privateJWK()["d"]?.stringValue))
        #expect(Base64URL.encode(printed.pub) == key.publicJWK["x"]?.stringValue)
        let printedPublic = try await Self.openSSLText(["-pubin", "-in", publicPath.path])
        #expect(printedPublic.priv == nil && printedPublic.pub == printed.pub)
        let rewritten = try await Tool.run("openssl", ["pkey", "-in", path.path])
        let privateText = try key.privateKeyPEM(), publicText = try key.publicKeyPEM()
        #expect(rewritten.status == 0 && rewritten.stdout == privateText)
        let rewrittenPublic = try await Tool.run("openssl", ["pkey", "-in", path.path, "-pubout"])
        #expect(rewrittenPublic.status == 0 && rewrittenPublic.stdout == publicText)
    }

    // MARK: Refused

    /// Malformed or unsupported X25519-shaped inputs, each with the error code it must give.
    enum Refused: String, CaseIterable {
        case nullParameters, oidParameters, nullParametersPKCS8, privateKeyShort, privateKeyLong, privateKeyNotWrapped
        case trailingInsideCurvePrivateKey, trailingAfterKey, publicKeyShort, publicKeyLong, publicKeyUnusedBits
        case publicKeyInVersion0, x448Public, x448Private, ed448Public

        func input() throws -> (pem: String, code: JOSEError.Code) {
            typealias T = X25519PEMTests
            let spki = try DERNode.parse(T.der("x25519.pub.pem")), pkcs8 = try DERNode.parse(T.der("x25519.pem"))
            func publicKey(_ tree: DERNode) -> String { T.pem("PUBLIC KEY", tree.encoded) }
            func privateKey(_ tree: DERNode) -> String { T.pem("PRIVATE KEY", tree.encoded) }
            func curvePrivateKey(_ bytes: [UInt8]) -> DERNode { pkcs8.replacing([2]) { _ in .leaf(0x04, DERNode.leaf(0x04, bytes).encoded) } }
            switch self {
            case .nullParameters: return (publicKey(spki.replacing([0]) { .node(0x30, $0.children + [.leaf(0x05, [])]) }), .invalidPEM)
            case .oidParameters: return (publicKey(spki.replacing([0]) { .node(0x30, $0.children + [.leaf(0x06, [0x2B, 0x65, 0x6E])]) }), .invalidPEM)
            case .nullParametersPKCS8: return (privateKey(pkcs8.replacing([1]) { .node(0x30, $0.children + [.leaf(0x05, [])]) }), .invalidPEM)
            case .privateKeyShort: return (privateKey(curvePrivateKey(Array(T.privateBytes.dropLast()))), .invalidKey)
            case .privateKeyLong: return (privateKey(curvePrivateKey(T.privateBytes + [0])), .invalidKey)
            case .privateKeyNotWrapped: return (privateKey(pkcs8.replacing([2]) { _ in .leaf(0x04, T.privateBytes) }), .invalidPEM)
            case .trailingInsideCurvePrivateKey:
                return (privateKey(pkcs8.replacing([2]) { _ in .leaf(0x04, DERNode.leaf(0x04, T.privateBytes).encoded + [0x05, 0x00]) }), .invalidPEM)
            case .trailingAfterKey: return (T.pem("PRIVATE KEY", pkcs8.encoded + [0x00]), .invalidPEM)
            case .publicKeyShort: return (publicKey(spki.replacing([1]) { _ in .leaf(0x03, [0x00] + T.publicBytes.dropLast()) }), .invalidKey)
            case .publicKeyLong: return (publicKey(spki.replacing([1]) { _ in .leaf(0x03, [0x00] + T.publicBytes + [0x00]) }), .invalidKey)
            case .publicKeyUnusedBits: return (publicKey(spki.replacing([1]) { _ in .leaf(0x03, [0x01] + T.publicBytes) }), .invalidKey)
            case .publicKeyInVersion0:
                let v1 = try DERNode.parse(PEMBlock.der(of: DERKeyReaderTests.oneAsymmetricKey("x25519.pem", "x25519.pub.pem"), label: "PRIVATE KEY"))
                return (privateKey(v1.replacing([0]) { _ in .leaf(0x02, [0x00]) }), .invalidPEM)
            case .x448Public:
                let x448 = DERNode.node(0x30, [.node(0x30, [.leaf(0x06, [0x2B, 0x65, 0x6F])]), .leaf(0x03, [0x00] + [UInt8](repeating: 9, count: 56))])
                return (publicKey(x448), .unsupportedKey)
            case .x448Private:
                return (
                    privateKey(curvePrivateKey([UInt8](repeating: 9, count: 56)).replacing([1, 0]) { _ in .leaf(0x06, [0x2B, 0x65, 0x6F]) }), .unsupportedKey
                )
            case .ed448Public:
                let ed448 = DERNode.node(0x30, [.node(0x30, [.leaf(0x06, [0x2B, 0x65, 0x71])]), .leaf(0x03, [0x00] + [UInt8](repeating: 9, count: 57))])
                return (publicKey(ed448), .unsupportedKey)
            }
        }
    }

    @Test("malformed X25519 keys and X448/Ed448 keys give the specific error, without key material", arguments: Refused.allCases)
    func refused(_ refused: Refused) throws {
        let (pem, code) = try refused.input()
        do {
            _ = try JWK(pem: pem)
            Issue.record("\(refused) was accepted")
        } catch let error as JOSEError {
            #expect(error.code == code, "\(refused): \(error)")
            for secret in [Self.privateBytes, Self.publicBytes] {
                #expect(!error.reason.contains(Base64URL.encode(secret).prefix(12)), "\(refused): the reason quotes the key")
                #expect(!error.reason.lowercased().contains(secret.prefix(6).map { String(format: "%02x", $0) }.joined()))
            }
            if refused == .x448Public || refused == .x448Private { #expect(error.reason.contains("X448"), "\(error.reason)") }
        }
        #expect(throws: JOSEError.self) { _ = try JWK(publicKeyFromPEM: pem) }
    }

    @Test("every proper prefix of the X25519 keys' DER is refused as invalid PEM", arguments: ["x25519.pem", "x25519.pub.pem"])
    func truncated(_ file: String) throws {
        let der = try Self.der(file)
        let label = DERKeyReaderTests.label(file)
        let format = try #require(PEMKeyFormat(label: label))
        for length in 0..<der.count {
            expectCode(.invalidPEM, "\(file) cut to \(length) bytes") { _ = try JWK(pem: Self.pem(label, Array(der.prefix(length)))) }
        }
        _ = try PEMKeyReader.read(der, format: format)
    }
}
