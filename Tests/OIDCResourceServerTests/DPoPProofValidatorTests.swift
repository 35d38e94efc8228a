import Foundation
import JOSE
import OIDC
import Testing

@testable import OIDCResourceServer

/// RFC 9449 §4.3: a proof from the library's own builder passes; each rule broken alone fails with its own code.
@Suite("DPoPProofValidator")
struct DPoPProofValidatorTests {
    static let now = Date(timeIntervalSince1970: 1_800_000_000)
    static let uri = URL(string: "https://rs.example/api/items?x=1#f")!
    static let accessToken = "at-123"

    static func validator(replays: DPoPProofValidator.ReplayProtection = .cache(InMemoryReplayCache())) -> DPoPProofValidator {
        DPoPProofValidator(maximumAge: 300, leeway: 60, replays: replays, clock: { now })
    }

    static func validate(
        _ proof: String, method: String = "GET", uri: URL = uri, nonce: DPoPProofValidator.NonceRule = .required("n-1"),
        presenting: DPoPProofValidator.Presentation = .accessToken(accessToken, boundTo: .notCheckedAtCallersRisk),
        validator: DPoPProofValidator = validator()
    ) async -> String? {
        do {
            _ = try await validator.validate(proof, for: .request(method: method, uri: uri), nonce: nonce, presenting: presenting)
            return nil
        } catch let error as OIDCError {
            return error.code.rawValue
        } catch {
            return "unexpected \(error)"
        }
    }

    @Test("a proof made by DPoPKey.proof passes, for every key kind")
    func builderProofPasses() async throws {
        for spec in [JWK.GenerationSpec.ec(.p256), .ec(.p384), .ed25519, .rsa(bits: 2048)] {
            let key = try DPoPKey.generate(spec)
            let proof = try key.proof(method: "GET", url: Self.uri, accessToken: Self.accessToken, nonce: "n-1", now: Self.now)
            let verified = try await Self.validator().validate(
                proof, for: .request(method: "GET", uri: Self.uri), nonce: .required("n-1"),
                presenting: .accessToken(Self.accessToken, boundTo: .thumbprint(key.thumbprint)))
            #expect(verified.thumbprint == key.thumbprint)
            #expect(!verified.key.isPrivate)
            #expect(verified.uri == "https://rs.example/api/items")
        }
    }

    /// A hand-made proof: `edit` changes header and claims of a valid one.
    static func proof(_ edit: (inout JSONObject, inout JSONObject) throws -> Void, sign: JWK? = nil, alg: JWSAlgorithm = .es256) throws -> String {
        let key = try JWK.generate(.ec(.p256))
        var header: JSONObject = ["typ": "dpop+jwt", "jwk": .object(key.publicJWK)]
        var claims: JSONObject = [
            "jti": "j-1", "htm": "GET", "htu": "https://rs.example/api/items", "iat": .integer(1_800_000_000),
            "nonce": "n-1", "ath": .string(DPoPKey.accessTokenHash(accessToken)),
        ]
        try edit(&header, &claims)
        return try JWT.sign(claims, key: sign ?? key, algorithm: alg, header: header)
    }

    static let cases: [(String, String?)] = [
        ("", nil),
        ("typ=JWT", "dpop_proof_typ"),
        // typ is compared as RFC 7515 §4.1.9 says (JOSEHeader.hasType): application/dpop+jwt and DPoP+JWT are dpop+jwt.
        ("typ=application/jwt", "dpop_proof_typ"),
        ("typ=dpop+jwt ", "dpop_proof_typ"),
        ("alg=HS256", "dpop_proof_alg"),
        ("-jwk", "dpop_proof_jwk"),
        ("jwk=private", "dpop_proof_private_jwk"),
        ("jwk=other", "dpop_proof_signature"),
        ("-jti", "dpop_proof_jti"),
        ("htm=POST", "dpop_proof_htm"),
        ("htu=https://rs.example/api/other", "dpop_proof_htu"),
        ("htu=https://rs.example/api/items?x=1", nil),  // §4.3 step 9: query and fragment are ignored on both sides
        ("htu=HTTPS://RS.example:443/api/items", nil),  // RFC 3986 §6.2.2.1 case, §6.2.3 default port
        ("htu=https://rs.example:8443/api/items", "dpop_proof_htu"),
        ("htu=https://rs.example/api/./items", nil),  // RFC 3986 §6.2.2.3 dot segments
        ("htu=https://rs.example/api/x/../items", nil),
        ("htu=https://rs.example/%61pi/item%73", nil),  // §6.2.2.2 percent-encoded unreserved characters
        ("htu=https://rs.example/api/items/", "dpop_proof_htu"),
        ("-iat", "dpop_proof_iat"),
        ("iat=1799999500", "dpop_proof_iat"),  // older than 300 s + 60 s leeway
        ("iat=1799999700", nil),  // within the window
        ("iat=1800000100", "dpop_proof_iat"),  // in the future beyond the leeway
        ("nonce=n-2", "dpop_proof_nonce"),
        ("-nonce", "dpop_proof_nonce"),
        ("ath=AAAA", "dpop_proof_ath"),
        ("-ath", "dpop_proof_ath"),
    ]

    @Test("each rule broken alone fails with its own code", arguments: cases.map { "\($0.0)|\($0.1 ?? "")" })
    func rules(_ row: String) async throws {
        let parts = row.split(separator: "|", omittingEmptySubsequences: false).map(String.init)
        let (broken, expected) = (parts[0], parts[1].isEmpty ? nil : parts[1])
        var signer: JWK?
        var alg = JWSAlgorithm.es256
        if broken == "alg=HS256" {
            signer = JWK(symmetricKey: Array(repeating: 7, count: 32))
            alg = .hs256
        }
        let other = try JWK.generate(.ec(.p256))
        let proof = try Self.proof(
            { header, claims in
                switch broken {
                case "": break
                case "-jwk": header = JSONObject(header.filter { $0.name != "jwk" }.map { ($0.name, $0.value) })
                case "jwk=private": header["jwk"] = .object(try other.privateJWK())
                case "jwk=other": header["jwk"] = .object(other.publicJWK)
                case let text where text.hasPrefix("typ="): header["typ"] = .string(String(text.dropFirst(4)))
                case let text where text.hasPrefix("-"):
                    claims = JSONObject(claims.filter { $0.name != String(text.dropFirst()) }.map { ($0.name, $0.value) })
                default:
                    let equals = try #require(broken.firstIndex(of: "="))
                    let value = String(broken[broken.index(after: equals)...])
                    claims[String(broken[..<equals])] = Int64(value).map { .integer($0) } ?? .string(value)
                }
            }, sign: signer, alg: alg)
        #expect(await Self.validate(proof) == expected, "\(broken)")
    }

    @Test("request rules: method, bound key, malformed input, no nonce or token required")
    func requestRules() async throws {
        let key = try DPoPKey.generate()
        let proof = try key.proof(method: "POST", url: Self.uri, now: Self.now)
        #expect(await Self.validate(proof, method: "POST", nonce: .notRequired, presenting: .noAccessToken) == nil)
        #expect(await Self.validate(proof, method: "GET", nonce: .notRequired, presenting: .noAccessToken) == "dpop_proof_htm")
        #expect(await Self.validate(proof, method: "POST", nonce: .required("n"), presenting: .noAccessToken) == "dpop_proof_nonce")
        let bound = try key.proof(method: "GET", url: Self.uri, accessToken: Self.accessToken, now: Self.now)
        #expect(await Self.validate(bound, nonce: .notRequired, presenting: .accessToken(Self.accessToken, boundTo: .thumbprint(key.thumbprint))) == nil)
        #expect(await Self.validate(bound, nonce: .notRequired, presenting: .accessToken(Self.accessToken, boundTo: .thumbprint("other"))) == "dpop_proof_jkt")
        #expect(await Self.validate(bound, nonce: .notRequired, presenting: .accessToken("at-other", boundTo: .notCheckedAtCallersRisk)) == "dpop_proof_ath")
        #expect(
            await Self.validate(
                bound, nonce: .notRequired, presenting: .accessTokenHash(DPoPKey.accessTokenHash(Self.accessToken), boundTo: .notCheckedAtCallersRisk)) == nil)
        for junk in ["", "a.b", "not a token", "e30.e30.", String(repeating: "x.", count: 3)] {
            #expect(await Self.validate(junk) == "dpop_proof_malformed", "\(junk)")
        }
    }

    @Test("replay protection is on by default: the same proof twice is dpop_proof_replayed (was accepted)")
    func replayByDefault() async throws {
        let validator = DPoPProofValidator(clock: { Self.now })
        let proof = try DPoPKey.generate().proof(method: "GET", url: Self.uri, now: Self.now)
        #expect(await Self.validate(proof, nonce: .notRequired, presenting: .noAccessToken, validator: validator) == nil)
        #expect(await Self.validate(proof, nonce: .notRequired, presenting: .noAccessToken, validator: validator) == "dpop_proof_replayed")
        // Opting out is explicit and named.
        let unchecked = DPoPProofValidator(replays: .disabledAtCallersRisk, clock: { Self.now })
        #expect(await Self.validate(proof, nonce: .notRequired, presenting: .noAccessToken, validator: unchecked) == nil)
        #expect(await Self.validate(proof, nonce: .notRequired, presenting: .noAccessToken, validator: unchecked) == nil)
    }

    @Test("the jti is scoped by the proof key: the same jti from another key is a first use")
    func replayScopedByKey() async throws {
        let validator = Self.validator()
        let first = try Self.proof { _, _ in }
        let second = try Self.proof { _, _ in }  // another generated key, the same jti "j-1"
        #expect(await Self.validate(first, validator: validator) == nil)
        #expect(await Self.validate(second, validator: validator) == nil)
        #expect(await Self.validate(first, validator: validator) == "dpop_proof_replayed")
    }

    /// A proof dated `leeway` in the future is acceptable until iat + maximumAge + leeway: its jti must be
    /// remembered that long on the validator's clock (a window of maximumAge + leeway from first use forgot it at t+361).
    @Test("a proof with a future iat is still refused as a replay at the last second it could pass", arguments: [60.0, 0.0])
    func replayRetentionFromAcceptanceRule(future: Double) async throws {
        let clock = Locked(Self.now)
        let validator = DPoPProofValidator(maximumAge: 300, leeway: 60, replays: .cache(InMemoryReplayCache()), clock: { clock.withLock { $0 } })
        let key = try DPoPKey.generate()
        let proof = try key.proof(method: "GET", url: Self.uri, now: Self.now.addingTimeInterval(future + 1))  // iat = whole second - 1
        #expect(await Self.validate(proof, nonce: .notRequired, presenting: .noAccessToken, validator: validator) == nil)
        let lastAcceptable = Self.now.addingTimeInterval(future + 300 + 60)
        for moment in [Self.now.addingTimeInterval(361), lastAcceptable] where moment <= lastAcceptable {
            clock.withLock { $0 = moment }
            #expect(
                await Self.validate(proof, nonce: .notRequired, presenting: .noAccessToken, validator: validator) == "dpop_proof_replayed",
                "at +\(moment.timeIntervalSince(Self.now))")
        }
        clock.withLock { $0 = lastAcceptable.addingTimeInterval(1) }
        #expect(await Self.validate(proof, nonce: .notRequired, presenting: .noAccessToken, validator: validator) == "dpop_proof_iat")
    }

    @Test("URI normalisation (RFC 3986 §6.2.2, §6.2.3)")
    func normalisation() {
        #expect(DPoPProofValidator.normalizedURI(URL(string: "HTTP://Example.COM:80")!) == "http://example.com/")
        #expect(DPoPProofValidator.normalizedURI(URL(string: "https://example.com:443/a?b#c")!) == "https://example.com/a")
        #expect(DPoPProofValidator.normalizedURI(URL(string: "https://example.com:80/a")!) == "https://example.com:80/a")
        #expect(DPoPProofValidator.normalizedURI(URL(string: "ftp://example.com/a")!) == nil)
        #expect(DPoPProofValidator.normalizedURI(URL(string: "/relative")!) == nil)
        let same: [(String, String)] = [
            ("https://rs.example/a~b", "https://rs.example/a%7Eb"),
            ("https://rs.example/a~b", "https://rs.example/a%7eb"),
            ("https://rs.example/a/./b", "https://rs.example/a/b"),
            ("https://rs.example/a/c/../b", "https://rs.example/a/b"),
            ("https://rs.example/a/%2f", "https://rs.example/a/%2F"),
            ("https://RS.Example:443", "https://rs.example/"),
            ("https://rs.example:/x", "https://rs.example/x"),
            ("https://user@rs.example/x", "https://rs.example/x"),
            ("http://[::1]:80/x", "http://[::1]/x"),
        ]
        for (one, other) in same {
            #expect(
                DPoPProofValidator.normalizedURI(one) != nil && DPoPProofValidator.normalizedURI(one) == DPoPProofValidator.normalizedURI(other),
                "\(one) vs \(other)")
        }
        #expect(DPoPProofValidator.normalizedURI("https://rs.example/a%2Fb") != DPoPProofValidator.normalizedURI("https://rs.example/a/b"))
        #expect(DPoPProofValidator.normalizedURI("https://rs.example/a/%2E%2E/b") == "https://rs.example/b")
        for bad in [
            "https://rs.example/%zz", "https://rs.example/%4", "https:rs.example", "https://", "https://rs.example:99999/",
            "https://rs.example/a b", "https://[::1/x",
        ] {
            #expect(DPoPProofValidator.normalizedURI(bad) == nil, "\(bad)")
        }
    }

    @Test("the one-pass check for URIs already in normal form answers only when the step-by-step normalization agrees")
    func alreadyNormalizedShortcut() {
        let plain = [
            "https://rs.example/items", "http://127.0.0.1/x?y#z", "https://api.example/a/b/c.json", "https://a-b_c.example/",
            "https://rs.example/a..b/c.", "https://rs.example//x", "http://localhost/~user",
        ]
        for uri in plain {
            #expect(DPoPProofValidator.alreadyNormalized(uri) != nil, "\(uri) takes the shortcut")
        }
        let others = [
            "HTTPS://rs.example/x", "https://RS.example/x", "https://rs.example:443/x", "https://rs.example:8443/x",
            "https://user@rs.example/x", "https://rs.example", "https://rs.example?x", "https://rs.example/a/./b",
            "https://rs.example/a/../b", "https://rs.example/.well-known/x", "https://rs.example/a%7Eb", "https://[::1]/x",
            "https://rs.example/a b", "ftp://rs.example/x", "https:/rs.example/x", "https://", "http://", "", "https://r~s.example/x",
            "https://rs.example/\u{e9}",
        ]
        for uri in plain + others {
            let shortcut = DPoPProofValidator.alreadyNormalized(uri)
            #expect(shortcut == nil || shortcut == DPoPProofValidator.normalizedBySteps(uri), "\(uri)")
        }
        for uri in others { #expect(DPoPProofValidator.alreadyNormalized(uri) == nil, "\(uri) is left to the steps") }
    }

    @Test("htu with ~ against the request's %7E and a dot segment pass through the validator (were dpop_proof_htu)")
    func normalisedComparison() async throws {
        let key = try DPoPKey.generate()
        for (request, htu) in [
            ("https://rs.example/a~b", "https://rs.example/a%7Eb"), ("https://rs.example/a/b", "https://rs.example/a/./b"),
            ("https://rs.example/a%7Eb", "https://RS.example:443/a~b"),
        ] {
            let proof = try JWT.sign(
                ["jti": .string(UUID().uuidString), "htm": "GET", "htu": .string(htu), "iat": .integer(1_800_000_000)],
                key: key.privateKey, algorithm: .es256, header: ["typ": "dpop+jwt", "jwk": .object(key.privateKey.publicJWK)])
            #expect(await Self.validate(proof, uri: URL(string: request)!, nonce: .notRequired, presenting: .noAccessToken) == nil, "\(request) \(htu)")
        }
    }
}
