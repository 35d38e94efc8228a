import Foundation
import Testing

@_spi(Testing) @testable import JOSE

/// A small DER tree for building test inputs from the repository's keys.
/// `parse` reads valid DER only; `encoded` writes minimal lengths.
indirect enum DERNode: Equatable {
    case leaf(UInt8, [UInt8])
    case node(UInt8, [DERNode])

    static func parse(_ bytes: [UInt8]) throws -> DERNode {
        let nodes = try parseAll(bytes[...])
        return try #require(nodes.count == 1 ? nodes[0] : nil)
    }

    static func parseAll(_ bytes: ArraySlice<UInt8>) throws -> [DERNode] {
        var nodes: [DERNode] = []
        var index = bytes.startIndex
        while index < bytes.endIndex {
            let tag = bytes[index]
            var length = Int(bytes[index + 1])
            index += 2
            if length > 0x80 {
                let count = length & 0x7F
                length = bytes[index..<index + count].reduce(0) { $0 << 8 | Int($1) }
                index += count
            }
            let contents = bytes[index..<index + length]
            index += length
            nodes.append(tag & 0x20 != 0 ? .node(tag, try parseAll(contents)) : .leaf(tag, Array(contents)))
        }
        return nodes
    }

    static func length(_ count: Int) -> [UInt8] {
        guard count >= 0x80 else { return [UInt8(count)] }
        var bytes: [UInt8] = []
        var rest = count
        while rest > 0 { bytes.insert(UInt8(rest & 0xFF), at: 0); rest >>= 8 }
        return [0x80 | UInt8(bytes.count)] + bytes
    }

    var encoded: [UInt8] {
        switch self {
        case .leaf(let tag, let contents): return [tag] + DERNode.length(contents.count) + contents
        case .node(let tag, let children):
            let contents = children.flatMap(\.encoded)
            return [tag] + DERNode.length(contents.count) + contents
        }
    }

    var contents: [UInt8] {
        switch self {
        case .leaf(_, let contents): return contents
        case .node(_, let children): return children.flatMap(\.encoded)
        }
    }

    var children: [DERNode] {
        if case .node(_, let children) = self { return children }
        return []
    }

    /// The node at `path` (child indices) replaced by `transform` of it.
    func replacing(_ path: [Int], _ transform: (DERNode) throws -> DERNode) rethrows -> DERNode {
        guard let first = path.first else { return try transform(self) }
        guard case .node(let tag, var children) = self else { return self }
        children[first] = try children[first].replacing(Array(path.dropFirst()), transform)
        return .node(tag, children)
    }

    subscript(_ path: Int...) -> DERNode {
        path.reduce(self) { $0.children[$1] }
    }
}

@Suite("Strict DER key reader behind JWK(pem:)")
struct DERKeyReaderTests {
    /// Every PEM file in Keys/, its public JWK file and an algorithm it signs with.
    static let files: [(pem: String, jwk: String, algorithm: JWSAlgorithm)] = [
        ("rsa2048.pem", "rsa2048.pub.jwk", .rs256), ("rsa2048.pub.pem", "rsa2048.pub.jwk", .rs256),
        ("rsa2048.pkcs1.pem", "rsa2048.pub.jwk", .rs384), ("rsa2048.cert.pem", "rsa2048.pub.jwk", .rs256),
        ("rsa3072.pem", "rsa3072.pub.jwk", .ps256), ("rsa3072.pub.pem", "rsa3072.pub.jwk", .ps256),
        ("p256.pem", "p256.pub.jwk", .es256), ("p256.pub.pem", "p256.pub.jwk", .es256), ("p256.sec1.pem", "p256.pub.jwk", .es256),
        ("p384.pem", "p384.pub.jwk", .es384), ("p384.pub.pem", "p384.pub.jwk", .es384),
        ("p521.pem", "p521.pub.jwk", .es512), ("p521.pub.pem", "p521.pub.jwk", .es512),
        ("ed25519.pem", "ed25519.pub.jwk", .eddsa), ("ed25519.pub.pem", "ed25519.pub.jwk", .eddsa),
    ]

    static func label(_ file: String) -> String {
        if file.hasSuffix(".pub.pem") { return "PUBLIC KEY" }
        if file.hasSuffix(".cert.pem") { return "CERTIFICATE" }
        if file.hasSuffix(".pkcs1.pem") { return "RSA PRIVATE KEY" }
        if file.hasSuffix(".sec1.pem") { return "EC PRIVATE KEY" }
        return "PRIVATE KEY"
    }

    static func der(_ file: String) throws -> [UInt8] {
        try PEMBlock.der(of: TestKeys.text(file), label: label(file))
    }

    static func pem(_ label: String, _ der: [UInt8]) -> String {
        "-----BEGIN \(label)-----\n\(Data(der).base64EncodedString(options: .lineLength64Characters))\n-----END \(label)-----\n"
    }

    static func publicJWK(_ file: String) throws -> JSONObject {
        var key = try TestKeys.jwk(file)
        key.keyID = nil
        key.use = nil
        key.algorithm = nil
        return key.publicJWK
    }

    /// Asserts that `pem` parses to the public key of `jwkFile`, as libcrypto's decoder reads it too.
    static func expectSameKey(_ pem: String, _ jwkFile: String, isPrivate: Bool, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let key = try JWK(pem: pem)
        let expected = try publicJWK(jwkFile)
        #expect(key.publicJWK == expected, sourceLocation: sourceLocation)
        #expect(key.thumbprint() == (try TestKeys.jwk(jwkFile).thumbprint()), sourceLocation: sourceLocation)
        #expect(key.isPrivate == isPrivate, sourceLocation: sourceLocation)
        #expect(JWK.openSSLPublicJWK(pem: pem) == expected, "libcrypto's decoder reads another key", sourceLocation: sourceLocation)
    }

    @Test(
        "every PEM file in Keys/ gives the public JWK of its .jwk file, and libcrypto's own decoder agrees",
        arguments: files.map { "\($0.pem)|\($0.jwk)" })
    func keyFiles(_ row: String) throws {
        let parts = row.split(separator: "|").map(String.init)
        try Self.expectSameKey(TestKeys.text(parts[0]), parts[1], isPrivate: Self.label(parts[0]).hasSuffix("PRIVATE KEY"))
        // The reference really decodes: it refuses what libcrypto refuses.
        #expect(JWK.openSSLPublicJWK(pem: Self.pem(Self.label(parts[0]), [0x30, 0x00])) == nil)
    }

    @Test(
        "JWK(publicKeyFromPEM:) gives the public key of every PEM form, never a private key",
        arguments: files.map { "\($0.pem)|\($0.jwk)" })
    func publicKeyFromPEM(_ row: String) throws {
        let parts = row.split(separator: "|").map(String.init)
        let key = try JWK(publicKeyFromPEM: TestKeys.text(parts[0]))
        #expect(!key.isPrivate)
        #expect(key.publicJWK == (try Self.publicJWK(parts[1])))
        #expect(key.thumbprint() == (try TestKeys.jwk(parts[1]).thumbprint()))
        #expect(throws: JOSEError.self) { try CompactJWS.sign(payload: "x", key: key, algorithm: Self.files.first { $0.pem == parts[0] }?.algorithm ?? .rs256) }
    }

    @Test("JWK(publicKeyFromPEM:) derives the point of an EC private key stored without it")
    func publicKeyFromPEMWithoutPoint() throws {
        let sec1 = try DERNode.parse(Self.der("p256.sec1.pem"))
        let bare = DERNode.node(0x30, Array(sec1.children.prefix(3)))
        let key = try JWK(publicKeyFromPEM: Self.pem("EC PRIVATE KEY", bare.encoded))
        #expect(!key.isPrivate)
        #expect(key.publicJWK == (try Self.publicJWK("p256.pub.jwk")))
        // Structure errors in the private part are still refused.
        let broken = DERNode.node(0x30, [sec1.children[0], .leaf(0x04, [])] + Array(sec1.children.dropFirst(2)))
        #expect(throws: JOSEError.self) { try JWK(publicKeyFromPEM: Self.pem("EC PRIVATE KEY", broken.encoded)) }
    }

    @Test(
        "private PEM keys sign, and the signatures verify with the JWK public key",
        arguments: files.filter { label($0.pem).hasSuffix("PRIVATE KEY") }.map { "\($0.pem)|\($0.jwk)|\($0.algorithm.rawValue)" })
    func privateKeysSign(_ row: String) throws {
        let parts = row.split(separator: "|").map(String.init)
        let algorithm = try #require(JWSAlgorithm(rawValue: parts[2]))
        let key = try TestKeys.pem(parts[0])
        let token = try CompactJWS.sign(payload: "signed with \(parts[0])", key: key, algorithm: algorithm)
        var publicKey = try TestKeys.jwk(parts[1])
        publicKey.algorithm = nil
        try CompactJWS(token).verify(with: publicKey)
        try CompactJWS(token).verify(with: key.publicKey)
    }

    @Test(
        "every proper prefix of every key's DER is refused as invalid PEM, never a crash",
        arguments: files.map(\.pem))
    func truncated(_ file: String) throws {
        let der = try Self.der(file)
        let label = Self.label(file)
        let format = try #require(PEMKeyFormat(label: label))
        _ = try PEMKeyReader.read(der, format: format)
        for length in 0..<der.count {
            let prefix = Array(der.prefix(length))
            expectCode(.invalidPEM, "\(file) cut to \(length) bytes") { _ = try PEMKeyReader.read(prefix, format: format) }
            expectCode(.invalidPEM, "\(file) cut to \(length) bytes, as PEM") { _ = try JWK(pem: Self.pem(label, prefix)) }
        }
    }

    // MARK: Accepted variants

    @Test("an EC public key with a compressed point reads as the same key")
    func compressedPoint() throws {
        for name in ["p256", "p384", "p521"] {
            let spki = try DERNode.parse(Self.der("\(name).pub.pem"))
            let point = Array(spki[1].contents.dropFirst())
            let size = (point.count - 1) / 2
            let compressed = [0x02 | (point[point.count - 1] & 1)] + point[1...size]
            let der = spki.replacing([1]) { _ in .leaf(0x03, [0x00] + compressed) }.encoded
            try Self.expectSameKey(Self.pem("PUBLIC KEY", der), "\(name).pub.jwk", isPrivate: false)
        }
    }

    @Test("an EC private key without its public point (SEC1 and PKCS#8) gets the point from libcrypto")
    func ecPrivateKeyWithoutPoint() throws {
        let sec1 = try DERNode.parse(Self.der("p256.sec1.pem"))
        let bare = DERNode.node(0x30, Array(sec1.children.prefix(3)))
        try Self.expectSameKey(Self.pem("EC PRIVATE KEY", bare.encoded), "p256.pub.jwk", isPrivate: true)
        let pkcs8 = try DERNode.parse(Self.der("p256.pem"))
        let inner = try DERNode.parse(pkcs8[2].contents)
        let bareInner = DERNode.node(0x30, Array(inner.children.prefix(2)))
        let der = pkcs8.replacing([2]) { _ in .leaf(0x04, bareInner.encoded) }.encoded
        try Self.expectSameKey(Self.pem("PRIVATE KEY", der), "p256.pub.jwk", isPrivate: true)
        let token = try CompactJWS.sign(payload: "x", key: JWK(pem: Self.pem("PRIVATE KEY", der)), algorithm: .es256)
        try CompactJWS(token).verify(with: TestKeys.jwk("p256.pub.jwk"))
    }

    /// PKCS#8 version 1 (OneAsymmetricKey) carrying its publicKey [1].
    static func oneAsymmetricKey(_ privateFile: String, _ publicFile: String, publicKey: [UInt8]? = nil) throws -> String {
        let pkcs8 = try DERNode.parse(der(privateFile))
        let spki = try DERNode.parse(der(publicFile))
        let bits = publicKey.map { [0x00] + $0 } ?? spki[1].contents
        let der = DERNode.node(0x30, [.leaf(0x02, [0x01]), pkcs8[1], pkcs8[2], .leaf(0x81, bits)]).encoded
        return pem("PRIVATE KEY", der)
    }

    @Test("RFC 5958 OneAsymmetricKey with a publicKey [1] is read, and the public key must match")
    func oneAsymmetricKeyWithPublicKey() throws {
        try Self.expectSameKey(Self.oneAsymmetricKey("ed25519.pem", "ed25519.pub.pem"), "ed25519.pub.jwk", isPrivate: true)
        try Self.expectSameKey(Self.oneAsymmetricKey("p256.pem", "p256.pub.pem"), "p256.pub.jwk", isPrivate: true)
        try Self.expectSameKey(Self.oneAsymmetricKey("rsa2048.pem", "rsa2048.pub.pem"), "rsa2048.pub.jwk", isPrivate: true)
        let otherEd = try DERNode.parse(Self.der("ed25519.pub.pem"))[1].contents.dropFirst().map { $0 ^ 1 }
        expectCode(.invalidKey) { _ = try JWK(pem: Self.oneAsymmetricKey("ed25519.pem", "ed25519.pub.pem", publicKey: otherEd)) }
        let otherPoint = try DERNode.parse(Self.der("p384.pub.pem"))[1].contents.dropFirst()
        expectCode(.invalidKey) { _ = try JWK(pem: Self.oneAsymmetricKey("p256.pem", "p256.pub.pem", publicKey: Array(otherPoint))) }
        let otherRSA = try DERNode.parse(Self.der("rsa3072.pub.pem"))[1].contents.dropFirst()
        expectCode(.invalidKey) { _ = try JWK(pem: Self.oneAsymmetricKey("rsa2048.pem", "rsa2048.pub.pem", publicKey: Array(otherRSA))) }
    }

    @Test("rsaEncryption without its NULL parameters, and PKCS#8 attributes, are accepted")
    func acceptedVariants() throws {
        let spki = try DERNode.parse(Self.der("rsa2048.pub.pem"))
        let noParameters = spki.replacing([0]) { .node(0x30, [$0[0]]) }
        try Self.expectSameKey(Self.pem("PUBLIC KEY", noParameters.encoded), "rsa2048.pub.jwk", isPrivate: false)
        let pkcs8 = try DERNode.parse(Self.der("p256.pem"))
        let attribute = DERNode.node(
            0x30,
            [
                .leaf(0x06, [0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D, 0x01, 0x09, 0x14]),
                .node(0x31, [.leaf(0x1E, Array("key".utf16.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] }))]),
            ])
        let withAttributes = DERNode.node(0x30, pkcs8.children + [.node(0xA0, [attribute])])
        try Self.expectSameKey(Self.pem("PRIVATE KEY", withAttributes.encoded), "p256.pub.jwk", isPrivate: true)
        // An attribute that is not SEQUENCE { OID, SET } is refused.
        let badAttribute = DERNode.node(0x30, pkcs8.children + [.node(0xA0, [.node(0x30, [.leaf(0x05, [])])])])
        expectCode(.invalidPEM) { _ = try JWK(pem: Self.pem("PRIVATE KEY", badAttribute.encoded)) }
    }

    @Test(
        "X.509 v3 certificates over EC and Ed25519 keys give their subject public key",
        .enabled(if: Tool.hasOpenSSL, "needs the openssl command line"), arguments: ["p384", "p521", "ed25519"])
    func certificates(_ name: String) async throws {
        let directory = try Tool.temporaryDirectory()
        defer { Tool.cleanUp(directory) }
        let path = directory.appendingPathComponent("\(name).cert.pem").path
        let output = try await Tool.run(
            "openssl",
            [
                "req", "-new", "-x509", "-key", TestKeys.directory.appendingPathComponent("\(name).pem").path,
                "-subj", "/CN=der reader test", "-days", "2", "-out", path,
            ])
        try #require(output.status == 0, "\(output.stderr)")
        try Self.expectSameKey(String(contentsOfFile: path, encoding: .utf8), "\(name).pub.jwk", isPrivate: false)
    }

    // MARK: Refused inputs

    /// Malformed or unsupported inputs, each with the error code it must give.
    enum Refused: String, CaseIterable {
        case indefiniteLength, nonMinimalShortLength, lengthWithLeadingZero, lengthPastEnd, trailingBytes, trailingInsideSequence
        case nonMinimalModulus, negativeModulus, zeroExponent, bitStringUnusedBits
        case pssAlgorithm, dsaAlgorithm, secp256k1, explicitCurve, pointNotOnCurve, ed25519WithNullParameters, rsaIntegerParameters
        case multiPrimeRSA, sec1WithoutCurve, sec1CurveDisagrees, pkcs8Version2, publicKeyInVersion0, ed25519WrongLength
        case paddingInside, urlSafeAlphabet, missingPadding, pemHeader, encryptedPrivateKey

        func input() throws -> (pem: String, code: JOSEError.Code) {
            typealias T = DERKeyReaderTests
            let rsaSPKI = try T.der("rsa2048.pub.pem"), ecSPKI = try T.der("p256.pub.pem")
            let rsaTree = try DERNode.parse(rsaSPKI), ecTree = try DERNode.parse(ecSPKI)
            let rsaKey = try DERNode.parse(Array(rsaTree[1].contents.dropFirst()))
            func rsaWith(_ key: [UInt8]) -> String { T.pem("PUBLIC KEY", rsaTree.replacing([1]) { _ in .leaf(0x03, [0x00] + key) }.encoded) }
            func ecWith(curve: DERNode) -> String { T.pem("PUBLIC KEY", ecTree.replacing([0, 1]) { _ in curve }.encoded) }
            func algorithm(_ oid: [UInt8]) -> String { T.pem("PUBLIC KEY", rsaTree.replacing([0, 0]) { _ in .leaf(0x06, oid) }.encoded) }
            let rsaPEM = try TestKeys.text("rsa2048.pub.pem"), ecPEM = try TestKeys.text("p256.pub.pem")
            switch self {
            case .indefiniteLength:
                return (T.pem("PUBLIC KEY", [0x30, 0x80] + ecSPKI.dropFirst(2) + [0x00, 0x00]), .invalidPEM)
            case .nonMinimalShortLength:
                #expect(ecSPKI[1] < 0x80)
                return (T.pem("PUBLIC KEY", [0x30, 0x81] + ecSPKI.dropFirst(1)), .invalidPEM)
            case .lengthWithLeadingZero:
                #expect(rsaSPKI[1] == 0x82)
                return (T.pem("PUBLIC KEY", [0x30, 0x83, 0x00] + rsaSPKI.dropFirst(2)), .invalidPEM)
            case .lengthPastEnd:
                // The BIT STRING claims one byte more than its SEQUENCE holds.
                let algorithm = ecTree[0].encoded, bits = ecTree[1].contents
                let contents = algorithm + [0x03, UInt8(bits.count + 1)] + bits
                return (T.pem("PUBLIC KEY", [0x30] + DERNode.length(contents.count) + contents), .invalidPEM)
            case .trailingBytes:
                return (T.pem("PUBLIC KEY", ecSPKI + [0x00, 0x00]), .invalidPEM)
            case .trailingInsideSequence:
                return (rsaWith(DERNode.node(0x30, rsaKey.children + [.leaf(0x05, [])]).encoded), .invalidPEM)
            case .nonMinimalModulus:
                return (rsaWith(rsaKey.replacing([0]) { .leaf(0x02, [0x00] + $0.contents) }.encoded), .invalidPEM)
            case .negativeModulus:
                #expect(rsaKey[0].contents.first == 0x00)
                return (rsaWith(rsaKey.replacing([0]) { .leaf(0x02, Array($0.contents.dropFirst())) }.encoded), .invalidKey)
            case .zeroExponent:
                return (rsaWith(rsaKey.replacing([1]) { _ in .leaf(0x02, [0x00]) }.encoded), .invalidKey)
            case .bitStringUnusedBits:
                return (T.pem("PUBLIC KEY", ecTree.replacing([1]) { .leaf(0x03, [0x01] + $0.contents.dropFirst()) }.encoded), .invalidKey)
            case .pssAlgorithm:
                return (algorithm([0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D, 0x01, 0x01, 0x0A]), .unsupportedKey)
            case .dsaAlgorithm:
                return (algorithm([0x2A, 0x86, 0x48, 0xCE, 0x38, 0x04, 0x01]), .unsupportedKey)
            case .secp256k1:
                return (ecWith(curve: .leaf(0x06, [0x2B, 0x81, 0x04, 0x00, 0x0A])), .unsupportedKey)
            case .explicitCurve:
                return (
                    ecWith(curve: .node(0x30, [.leaf(0x02, [0x01]), .node(0x30, [.leaf(0x06, [0x2A, 0x86, 0x48, 0xCE, 0x3D, 0x01, 0x01])])])), .unsupportedKey
                )
            case .pointNotOnCurve:
                return (
                    T.pem(
                        "PUBLIC KEY",
                        ecTree.replacing([1]) {
                            var bits = $0.contents; bits[bits.count - 1] ^= 1; return .leaf(0x03, bits)
                        }.encoded), .invalidKey
                )
            case .ed25519WithNullParameters:
                let ed = try DERNode.parse(T.der("ed25519.pub.pem"))
                return (T.pem("PUBLIC KEY", ed.replacing([0]) { .node(0x30, $0.children + [.leaf(0x05, [])]) }.encoded), .invalidPEM)
            case .rsaIntegerParameters:
                return (T.pem("PUBLIC KEY", rsaTree.replacing([0, 1]) { _ in .leaf(0x02, [0x05]) }.encoded), .invalidPEM)
            case .multiPrimeRSA:
                let pkcs1 = try DERNode.parse(T.der("rsa2048.pkcs1.pem"))
                return (T.pem("RSA PRIVATE KEY", pkcs1.replacing([0]) { _ in .leaf(0x02, [0x01]) }.encoded), .unsupportedKey)
            case .sec1WithoutCurve:
                let sec1 = try DERNode.parse(T.der("p256.sec1.pem"))
                return (T.pem("EC PRIVATE KEY", DERNode.node(0x30, [sec1[0], sec1[1], sec1[3]]).encoded), .invalidKey)
            case .sec1CurveDisagrees:
                let pkcs8 = try DERNode.parse(T.der("p256.pem"))
                let inner = try DERNode.parse(pkcs8[2].contents)
                let p384 = DERNode.node(0xA0, [.leaf(0x06, [0x2B, 0x81, 0x04, 0x00, 0x22])])
                let innerWithCurve = DERNode.node(0x30, [inner[0], inner[1], p384, inner[2]])
                return (T.pem("PRIVATE KEY", pkcs8.replacing([2]) { _ in .leaf(0x04, innerWithCurve.encoded) }.encoded), .invalidKey)
            case .pkcs8Version2:
                let pkcs8 = try DERNode.parse(T.der("ed25519.pem"))
                return (T.pem("PRIVATE KEY", pkcs8.replacing([0]) { _ in .leaf(0x02, [0x02]) }.encoded), .unsupportedKey)
            case .publicKeyInVersion0:
                let v1 = try DERNode.parse(PEMBlock.der(of: T.oneAsymmetricKey("ed25519.pem", "ed25519.pub.pem"), label: "PRIVATE KEY"))
                return (T.pem("PRIVATE KEY", v1.replacing([0]) { _ in .leaf(0x02, [0x00]) }.encoded), .invalidPEM)
            case .ed25519WrongLength:
                let pkcs8 = try DERNode.parse(T.der("ed25519.pem"))
                return (T.pem("PRIVATE KEY", pkcs8.replacing([2]) { _ in .leaf(0x04, [0x04, 31] + [UInt8](repeating: 7, count: 31)) }.encoded), .invalidKey)
            case .paddingInside:
                #expect(ecPEM.contains("MFkw"))
                return (ecPEM.replacingOccurrences(of: "MFkw", with: "MF=kw"), .invalidPEM)
            case .urlSafeAlphabet:
                #expect(rsaPEM.contains("+") || rsaPEM.contains("/"))
                return (rsaPEM.replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_"), .invalidPEM)
            case .missingPadding:
                #expect(ecPEM.contains("="))
                return (ecPEM.replacingOccurrences(of: "=", with: ""), .invalidPEM)
            case .pemHeader:
                return (
                    rsaPEM.replacingOccurrences(of: "-----\n", with: "-----\nComment: test\n\n", options: [], range: rsaPEM.range(of: "-----\n")), .invalidPEM
                )
            case .encryptedPrivateKey:
                return (T.pem("ENCRYPTED PRIVATE KEY", ecSPKI), .unsupportedKey)
            }
        }
    }

    @Test("malformed, unsupported and invalid DER keys give the specific error, without key material", arguments: Refused.allCases)
    func refused(_ refused: Refused) throws {
        let (pem, code) = try refused.input()
        do {
            _ = try JWK(pem: pem)
            Issue.record("\(refused) was accepted")
        } catch let error as JOSEError {
            #expect(error.code == code, "\(refused): \(error)")
            let body = pem.split(separator: "\n").filter { !$0.hasPrefix("-----") }.joined()
            let bytes = Array(body.utf8)
            for start in stride(from: 0, to: max(bytes.count - 12, 0), by: 1) {
                let window = String(decoding: bytes[start..<start + 12], as: UTF8.self)
                #expect(!error.reason.contains(window), "\(refused): the reason quotes the input")
            }
        }
    }
}
