import Testing

@testable import JOSE

@Suite("JWE: refused by design and strict parsing")
struct JWERefusalTests {
    static let kw = JWK(symmetricKey: Array(repeating: 0x11, count: 16))

    /// A compact JWE whose protected header is `header` (encoded as given) and whose other segments are plausible.
    static func token(header: String, key: String = "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA", iv: String = "AAAAAAAAAAAAAAAA") -> String {
        [Base64URL.encode(Array(header.utf8)), key, iv, "AAAA", "AAAAAAAAAAAAAAAAAAAAAA"].joined(separator: ".")
    }

    @Test("RSA1_5, PBES2 and unknown algorithms are unsupported_algorithm; the allow-list cannot bring them back")
    func refusedAlgorithms() throws {
        let rsa = try JWK(json: JWEExamples.a1Key)
        for alg in ["RSA1_5", "PBES2-HS256+A128KW", "PBES2-HS512+A256KW", "none", "A128GCMKW2"] {
            let jwe = try CompactJWE(Self.token(header: #"{"alg":"\#(alg)","enc":"A128GCM"}"#))
            expectCode(.unsupportedAlgorithm, "\(alg)") { _ = try jwe.decrypt(with: alg == "RSA1_5" ? rsa : Self.kw) }
        }
        let badEnc = try CompactJWE(Self.token(header: #"{"alg":"A128KW","enc":"A128CBC"}"#))
        expectCode(.unsupportedAlgorithm) { _ = try badEnc.decrypt(with: Self.kw) }
    }

    @Test("zip is refused at parse time")
    func zip() {
        expectCode(.unsupportedAlgorithm) { _ = try CompactJWE(Self.token(header: #"{"alg":"A128KW","enc":"A128GCM","zip":"DEF"}"#)) }
    }

    @Test("unknown crit is refused; a declared one passes the header check")
    func crit() throws {
        let token = try CompactJWE.encrypt(
            "x", to: Self.kw, algorithm: .a128KW, encryption: .a128GCM,
            header: ["crit": ["urn:example:x"], "urn:example:x": true])
        let jwe = try CompactJWE(token)
        expectCode(.unsupportedCriticalHeader) { _ = try jwe.decrypt(with: Self.kw) }
        #expect(try jwe.decryptString(with: Self.kw, policy: JWEDecryptionPolicy(understoodCriticalHeaders: ["urn:example:x"])) == "x")
    }

    @Test("the key decides: wrong type, size, alg, use or key_ops is refused before any decryption")
    func keyAdmission() throws {
        let token = try CompactJWE.encrypt("x", to: Self.kw, algorithm: .a128KW, encryption: .a128GCM)
        let jwe = try CompactJWE(token)
        // A 256-bit secret does not admit A128KW (the token cannot pick the key's algorithm).
        expectCode(.keyAlgorithmMismatch) { _ = try jwe.decrypt(with: JWK(symmetricKey: Array(repeating: 0x11, count: 32))) }
        expectCode(.keyAlgorithmMismatch) { _ = try jwe.decrypt(with: JWK(json: JWEExamples.a1Key)) }
        var restricted = Self.kw
        restricted.algorithm = "dir"
        expectCode(.keyAlgorithmMismatch) { _ = try jwe.decrypt(with: restricted) }
        restricted.algorithm = "A128KW"
        #expect(try jwe.decrypt(with: restricted) == Array("x".utf8))
        var signing = Self.kw
        signing.use = "sig"
        expectCode(.keyUsageNotPermitted) { _ = try jwe.decrypt(with: signing) }
        var ops = Self.kw
        ops.keyOperations = ["wrapKey"]
        expectCode(.keyUsageNotPermitted) { _ = try jwe.decrypt(with: ops) }
        ops.keyOperations = ["unwrapKey"]
        #expect(try jwe.decrypt(with: ops) == Array("x".utf8))
        expectCode(.keyUsageNotPermitted) { _ = try CompactJWE.encrypt("x", to: ops, algorithm: .a128KW, encryption: .a128GCM) }
        // A dir key whose alg names a content encryption admits dir with that one only (RFC 7520 §5.6).
        var direct = JWK(symmetricKey: Array(repeating: 0x11, count: 16))
        direct.algorithm = "A128GCM"
        #expect(direct.admits(.direct, encryption: .a128GCM))
        #expect(!direct.admits(.a128KW, encryption: .a128GCM))
        var direct32 = JWK(symmetricKey: Array(repeating: 0x11, count: 32))
        direct32.algorithm = "A128GCM"
        #expect(!direct32.admits(.direct, encryption: .a128CBCHS256))
        // Allow-lists.
        expectCode(.algorithmNotAllowed) { _ = try jwe.decrypt(with: Self.kw, policy: JWEDecryptionPolicy(allowedKeyAlgorithms: [.a256KW])) }
        expectCode(.algorithmNotAllowed) { _ = try jwe.decrypt(with: Self.kw, policy: JWEDecryptionPolicy(allowedContentEncryptions: [.a256GCM])) }
    }

    @Test("RSA keys below the minimum are weak_key; a public key cannot decrypt")
    func rsaStrength() throws {
        let rsa = try JWK(json: JWEExamples.a1Key)
        let jwe = try CompactJWE(JWEExamples.a1Token)
        expectCode(.weakKey) { _ = try jwe.decrypt(with: rsa, policy: JWEDecryptionPolicy(minimumRSAKeyBits: 3072)) }
        let publicOnly = try JWK(json: #"{"kty":"RSA","n":"\#(rsa.publicMembers.first { $0.name == "n" }?.value ?? "")","e":"AQAB"}"#)
        expectCode(.invalidKey) { _ = try jwe.decrypt(with: publicOnly) }
    }

    @Test("strict shape: five segments, non-empty header, canonical Base64URL, no duplicate members, size limit")
    func shape() throws {
        let good = try CompactJWE.encrypt("x", to: Self.kw, algorithm: .a128KW, encryption: .a128GCM)
        let parts = good.split(separator: ".").map(String.init)
        expectCode(.malformedToken) { _ = try CompactJWE(parts.dropLast().joined(separator: ".")) }
        expectCode(.malformedToken) { _ = try CompactJWE(good + ".AAAA") }
        expectCode(.malformedToken) { _ = try CompactJWE("." + parts.dropFirst().joined(separator: ".")) }
        expectCode(.invalidBase64URL) { _ = try CompactJWE(good + "=") }
        expectCode(.invalidBase64URL) { _ = try CompactJWE(([parts[0], parts[1] + "+"] + parts.dropFirst(2)).joined(separator: ".")) }
        expectCode(.duplicateJSONMember) { _ = try CompactJWE(Self.token(header: #"{"alg":"A128KW","enc":"A128GCM","enc":"A256GCM"}"#)) }
        expectCode(.invalidHeader) { _ = try CompactJWE(Self.token(header: #"{"alg":"A128KW"}"#)) }
        expectCode(.invalidHeader) { _ = try CompactJWE(Self.token(header: #"{"enc":"A128GCM"}"#)) }
        expectCode(.invalidHeader) { _ = try CompactJWE(Self.token(header: #"{"alg":"A128KW","enc":7}"#)) }
        expectCode(.limitExceeded) { _ = try CompactJWE(good, limits: JOSELimits(maxTokenBytes: 64)) }
        // dir and ECDH-ES must have an empty encrypted key; key wrapping needs one.
        let direct = JWK(symmetricKey: Array(repeating: 1, count: 16))
        let dirToken = try CompactJWE.encrypt("x", to: direct, algorithm: .direct, encryption: .a128GCM).split(separator: ".", omittingEmptySubsequences: false)
            .map(String.init)
        expectCode(.malformedToken) { _ = try CompactJWE(([dirToken[0], "AAAA"] + dirToken.dropFirst(2)).joined(separator: ".")).decrypt(with: direct) }
        expectCode(.malformedToken) { _ = try CompactJWE(([parts[0], ""] + parts.dropFirst(2)).joined(separator: ".")).decrypt(with: Self.kw) }
    }

    @Test("ECDH-ES: an epk off the curve, on another curve, with a private part, or missing is invalid_header")
    func epk() throws {
        let key = try JWK.generate(.ec(.p256))
        let other = try JWK.generate(.ec(.p384))
        let token = try CompactJWE.encrypt("x", to: key, algorithm: .ecdhES, encryption: .a128GCM)
        let parts = token.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        var header = try JSONParser.parseObject(Base64URL.decode(parts[0]), what: "header")
        func with(_ epk: JSONValue?) throws -> CompactJWE {
            header["epk"] = epk
            return try CompactJWE(([Base64URL.encode(Array(JSONValue.object(header).jsonString().utf8))] + parts.dropFirst()).joined(separator: "."))
        }
        guard var epk = header["epk"]?.objectValue, let x = epk["x"]?.stringValue else { Issue.record("no epk"); return }
        var bytes = try Base64URL.decode(x)
        bytes[bytes.count - 1] ^= 1
        epk["x"] = .string(Base64URL.encode(bytes))
        expectCode(.invalidHeader, "off the curve") { _ = try with(.object(epk)).decrypt(with: key) }
        var foreign = JSONObject()
        for member in other.publicMembers { foreign[member.name] = .string(member.value) }
        expectCode(.invalidHeader, "P-384 epk for a P-256 key") { _ = try with(.object(foreign)).decrypt(with: key) }
        var identity = JSONObject()
        identity["kty"] = "EC"; identity["crv"] = "P-256"
        identity["x"] = .string(Base64URL.encode([UInt8](repeating: 0, count: 32))); identity["y"] = .string(Base64URL.encode([UInt8](repeating: 0, count: 32)))
        expectCode(.invalidHeader, "the point (0, 0)") { _ = try with(.object(identity)).decrypt(with: key) }
        guard var withPrivate = header["epk"]?.objectValue else { return }
        withPrivate["d"] = .string(Base64URL.encode([UInt8](repeating: 1, count: 32)))
        expectCode(.invalidHeader, "private epk") { _ = try with(.object(withPrivate)).decrypt(with: key) }
        expectCode(.invalidHeader, "missing epk") { _ = try with(nil).decrypt(with: key) }
    }

    @Test("errors and descriptions never carry key material")
    func noSecrets() throws {
        let secret: [UInt8] = Array("0123456789abcdef".utf8)
        let key = JWK(symmetricKey: secret)
        let token = try CompactJWE.encrypt("x", to: key, algorithm: .a128KW, encryption: .a128GCM)
        do {
            _ = try CompactJWE(try JWERoundTripTests.tamper(token, segment: 4, JWERoundTripTests.flipLast)).decrypt(with: key)
        } catch {
            #expect(!"\(error)".contains("0123456789abcdef"))
            #expect(!"\(error)".contains(Base64URL.encode(secret)))
        }
    }
}
