import Foundation
import Testing

@testable import JOSE

@Suite("JWK parsing, thumbprints and redaction")
struct JWKTests {
    @Test("an EC point not on the curve is an invalid key")
    func pointNotOnCurve() throws {
        var object = try TestKeys.jwk("p256.pub.jwk").publicJWK
        var y = try Base64URL.decode(try #require(object["y"]?.stringValue))
        y[31] ^= 1
        object["y"] = .string(Base64URL.encode(y))
        expectCode(.invalidKey) { _ = try JWK(jsonObject: object) }
        // Wrong coordinate length too.
        object["y"] = .string(Base64URL.encode(Array(y.dropFirst())))
        expectCode(.invalidKey) { _ = try JWK(jsonObject: object) }
    }

    @Test("an EC key whose private scalar does not match its point is invalid")
    func mismatchedPrivateKey() throws {
        var object = try TestKeys.jwk("p256.jwk").publicJWK
        object["d"] = .string(Base64URL.encode([UInt8](repeating: 7, count: 32)))
        expectCode(.invalidKey) { _ = try JWK(jsonObject: object) }
    }

    @Test("unsupported key types and curves are typed")
    func unsupported() throws {
        expectCode(.unsupportedKey) { _ = try JWK(json: #"{"kty":"EC","crv":"secp256k1","x":"AA","y":"AA"}"#) }
        expectCode(.unsupportedKey) { _ = try JWK(json: #"{"kty":"OKP","crv":"X448","x":"AA"}"#) }
        expectCode(.unsupportedKey) { _ = try JWK(json: #"{"kty":"DSA"}"#) }
        expectCode(.invalidKey) { _ = try JWK(json: #"{"k":"AAAA"}"#) }
        expectCode(.invalidKey) { _ = try JWK(json: #"{"kty":"oct","k":"AA=A"}"#) }
    }

    @Test("RFC 7638 §3.1 thumbprint")
    func thumbprint() throws {
        let key = try JWK(
            json: """
                {"kty":"RSA","n":"0vx7agoebGcQSuuPiLJXZptN9nndrQmbXEps2aiAFbWhM78LhWx4cbbfAAtVT86zwu1RK7aPFFxuhDR1L6tSoc_BJECPebWKRXjBZCiFV4n3oknjhMstn64tZ_2W-5JsGY4Hc5n9yBXArwl93lqt7_RN5w6Cf0h4QyQ5v-65YGjQR0_FDW2QvzqY368QQMicAtaSqzs8KJZgnYb9c7d0zgdAZHzu6qMQvRL5hajrn1n91CbOpbISD08qNLyrdkt-bFTWhAI4vMQFh6WeZu0fM4lFd2NcRwr3XPksINHaQ-G_xBniIqbw0Ls1jF44-csFCur-kEgU8awapJzKnqDKgw","e":"AQAB","alg":"RS256","kid":"2011-04-29"}
                """)
        #expect(key.thumbprint() == "NzbLsXh8uDCcd-6MNwXF4W_7noWXFZAfHkxZsRGC9Xs")
        // Optional members do not change it; the private key has the same thumbprint as its public half.
        var bare = key
        bare.keyID = nil
        bare.algorithm = nil
        #expect(bare.thumbprint() == key.thumbprint())
        #expect(try TestKeys.jwk("rsa2048.jwk").thumbprint() == TestKeys.jwk("rsa2048.pub.jwk").thumbprint())
    }

    static let pemForms: [(file: String, publicFile: String)] = [
        ("rsa2048.pub.pem", "rsa2048.pub.jwk"), ("rsa2048.pem", "rsa2048.pub.jwk"), ("rsa2048.pkcs1.pem", "rsa2048.pub.jwk"),
        ("rsa2048.cert.pem", "rsa2048.pub.jwk"), ("rsa3072.pem", "rsa3072.pub.jwk"), ("rsa3072.pub.pem", "rsa3072.pub.jwk"),
        ("p256.pub.pem", "p256.pub.jwk"), ("p256.pem", "p256.pub.jwk"), ("p256.sec1.pem", "p256.pub.jwk"),
        ("p384.pem", "p384.pub.jwk"), ("p384.pub.pem", "p384.pub.jwk"), ("p521.pem", "p521.pub.jwk"), ("p521.pub.pem", "p521.pub.jwk"),
        ("ed25519.pem", "ed25519.pub.jwk"), ("ed25519.pub.pem", "ed25519.pub.jwk"),
    ]

    @Test(
        "SPKI, PKCS#8, PKCS#1, SEC1 and X.509 PEM give the public JWK of the .pub.jwk file",
        arguments: pemForms.map { "\($0.file)|\($0.publicFile)" })
    func pem(_ row: String) throws {
        let parts = row.split(separator: "|").map(String.init)
        let fromPEM = try TestKeys.pem(parts[0])
        var expected = try TestKeys.jwk(parts[1])
        expected.keyID = nil
        expected.use = nil
        expected.algorithm = nil
        #expect(fromPEM.publicJWK == expected.publicJWK)
        #expect(fromPEM.isPrivate == (parts[0].hasSuffix(".pub.pem") || parts[0].hasSuffix(".cert.pem") ? false : true))
        #expect(fromPEM.thumbprint() == expected.thumbprint())
    }

    @Test("garbage and unsupported PEM give typed errors")
    func badPEM() throws {
        expectCode(.invalidPEM) { _ = try JWK(pem: "hello") }
        expectCode(.invalidPEM) { _ = try JWK(pem: "-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----\n") }
        expectCode(.invalidPEM) { _ = try JWK(pem: "-----BEGIN PRIVATE KEY-----\nnot base64!\n-----END PRIVATE KEY-----\n") }
        expectCode(.invalidPEM) { _ = try JWK(pem: "-----BEGIN CERTIFICATE REQUEST-----\nAAAA\n-----END CERTIFICATE REQUEST-----\n") }
        // Truncated real key.
        let text = try TestKeys.text("p256.pub.pem")
        expectCode(.invalidPEM) { _ = try JWK(pem: String(text.prefix(text.count / 2))) }
    }

    @Test("encrypted private keys are refused without prompting", .enabled(if: Tool.hasOpenSSL, "needs the openssl command line"))
    func encryptedPEM() async throws {
        let directory = try Tool.temporaryDirectory()
        defer { Tool.cleanUp(directory) }
        let pkcs8 = directory.appendingPathComponent("enc.pem").path
        var output = try await Tool.run(
            "openssl",
            [
                "pkcs8", "-topk8", "-v2", "aes-256-cbc", "-in", TestKeys.directory.appendingPathComponent("p256.pem").path,
                "-passout", "pass:test", "-out", pkcs8,
            ])
        try #require(output.status == 0, "\(output.stderr)")
        expectCode(.unsupportedKey) { _ = try JWK(pem: String(contentsOfFile: pkcs8, encoding: .utf8)) }
        // Traditional (OpenSSL-style) encryption: "Proc-Type: 4,ENCRYPTED" inside an RSA PRIVATE KEY block.
        let traditional = directory.appendingPathComponent("enc-trad.pem").path
        output = try await Tool.run(
            "openssl",
            [
                "rsa", "-traditional", "-aes256", "-in", TestKeys.directory.appendingPathComponent("rsa2048.pem").path,
                "-passout", "pass:test", "-out", traditional,
            ])
        try #require(output.status == 0, "\(output.stderr)")
        let text = try String(contentsOfFile: traditional, encoding: .utf8)
        #expect(text.contains("ENCRYPTED"))
        expectCode(.invalidPEM) { _ = try JWK(pem: text) }
    }

    @Test("descriptions of keys and errors never contain the secret")
    func redaction() throws {
        let secret = try TestKeys.jwk("hmac.jwk")
        let k = try #require(try JSONParser.parseObject(Array(try TestKeys.text("hmac.jwk").utf8), what: "x")["k"]?.stringValue)
        let raw = try Base64URL.decode(k)
        let hex = hexString(raw)
        var texts = [String(describing: secret), String(reflecting: secret), secret.publicJWKString, "\(secret.publicKey)"]
        // Errors raised while using the secret.
        let token = try CompactJWS.sign(payload: "x", key: secret, algorithm: .hs256)
        var tampered = token
        tampered.removeLast()
        tampered.append(token.last == "A" ? "Q" : "A")
        for body: () throws -> Void in [
            { try CompactJWS(tampered).verify(with: secret) },
            { try CompactJWS(token).verify(with: TestKeys.jwk("p256.pub.jwk")) },
            { _ = try JWK(json: #"{"kty":"oct","k":"\#(k)=="}"#) },
            { _ = try JWK(json: #"{"kty":"oct","k":"\#(k)","kid":7}"#) },
            { _ = try JWKSet(json: #"{"keys":[{"kty":"oct","k":"\#(k)","use":1}]}"#).selectKey(keyID: "x", algorithm: .hs256) },
            { _ = try JWK(pem: "-----BEGIN PRIVATE KEY-----\n\(k)\n-----END PRIVATE KEY-----") },
        ] {
            do { try body(); Issue.record("expected an error") } catch {
                texts.append(String(describing: error))
                texts.append(String(reflecting: error))
                if let jose = error as? JOSEError { texts.append(jose.reason) }
            }
        }
        let set = try JWKSet(json: #"{"keys":[{"kty":"oct","k":"\#(k)","use":1}]}"#)
        texts.append(String(describing: set))
        texts += set.skipped.map { String(describing: $0) }
        for text in texts {
            #expect(!text.contains(k), "\(text)")
            #expect(!text.contains(String(k.prefix(12))), "\(text)")
            #expect(!text.lowercased().contains(String(hex.prefix(16))), "\(text)")
        }
        // An oct key's public JWK has no k.
        #expect(secret.publicJWK["k"] == nil)
    }
}
