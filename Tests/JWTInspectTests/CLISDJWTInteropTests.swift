import Foundation
import Testing

/// The venv with PyPI's `sd-jwt` (the specification's reference implementation), when
/// `Tests/SDJWTInterop/sdjwt-setup.sh` made it (Tests/run.sh calls it).
enum SDJWTReference {
    static let directory = CLI.repository.appendingPathComponent("Tests/SDJWTInterop")
    static let script = directory.appendingPathComponent("sdjwt_interop.py").path
    static let python: String? = {
        let path = directory.appendingPathComponent(".venv-sdjwt/bin/python").path
        return FileManager.default.isExecutableFile(atPath: path) ? path : nil
    }()
    /// Under CI the venv must exist: a missing reference is a failure there, a skip elsewhere.
    static let required = ProcessInfo.processInfo.environment["CI"] == "true"

    static func run(_ arguments: [String]) async throws -> External.Result {
        let python = try #require(python)
        return try await External.run(python, [script] + arguments)
    }

    static func cases() -> [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.appendingPathComponent("testcases").path)) ?? []
        return names.filter { $0.hasSuffix(".yml") && $0 != "settings.yml" }.map { String($0.dropLast(4)) }.sorted()
    }

    /// JSON text normalised for comparison (sorted keys).
    static func normalised(_ text: String) throws -> String {
        let object = try JSONSerialization.jsonObject(with: Data(text.utf8), options: [.fragmentsAllowed])
        return String(decoding: try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .fragmentsAllowed]), as: UTF8.self)
    }
}

@Suite("jwt-inspect SD-JWT interop with the reference implementation (PyPI sd-jwt)", .serialized)
struct CLISDJWTInteropTests {
    @Test("a missing reference venv fails under CI")
    func referencePresentUnderCI() {
        if SDJWTReference.required { #expect(SDJWTReference.python != nil, "run Tests/SDJWTInterop/sdjwt-setup.sh") }
    }

    @Test(
        "the reference's own test cases, issued and presented there, verify here with the same processed claims",
        .enabled(if: SDJWTReference.python != nil, "needs Tests/SDJWTInterop/.venv-sdjwt (sdjwt-setup.sh)"))
    func referenceCases() async throws {
        let out = try External.scratch()
        defer { try? FileManager.default.removeItem(at: out) }
        let made = try await SDJWTReference.run(["reference-cases", out.path])
        try #require(made.status == 0, "\(made.stderr)")
        let cases = SDJWTReference.cases()
        #expect(cases.count >= 14)
        var bound = 0
        for name in cases {
            let presentation = try String(contentsOf: out.appendingPathComponent(name + ".presentation"), encoding: .utf8)
            let expected = try String(contentsOf: out.appendingPathComponent(name + ".expected.json"), encoding: .utf8)
            let binding = try String(contentsOf: out.appendingPathComponent(name + ".binding"), encoding: .utf8).split(separator: " ").map(String.init)
            let extra = binding.count == 2 ? ["--aud", binding[0], "--nonce", binding[1]] : []
            if binding.count == 2 { bound += 1 }
            let result = try await CLI.run(
                ["--as", "sd-jwt", "--key", out.appendingPathComponent("issuer.pub.jwk").path, "--json"] + extra + [presentation])
            if name == "header_mod" {
                // Its header carries "kid": 42, a number: RFC 7515 §4.1.4 makes kid a string, so the JWS layer refuses it.
                #expect(result.status == 1 && result.reason == "invalid_header", "\(name): \(result.stdout)")
                continue
            }
            #expect(result.status == 0, "\(name): \(result.stdout) \(result.stderr)")
            let claims = try #require(result.json?["claims"], "\(name)")
            let got = String(decoding: try JSONSerialization.data(withJSONObject: claims, options: [.sortedKeys]), as: UTF8.self)
            #expect(got == (try SDJWTReference.normalised(expected)), "\(name)")
        }
        #expect(bound >= 2)
    }

    @Test(
        "issued and presented by jwt-inspect (recursive, arrays, decoys, key binding), verified by the reference",
        .enabled(if: SDJWTReference.python != nil, "needs Tests/SDJWTInterop/.venv-sdjwt (sdjwt-setup.sh)"))
    func ourTokensThere() async throws {
        let out = try External.scratch()
        defer { try? FileManager.default.removeItem(at: out) }
        try #require(try await SDJWTReference.run(["reference-cases", out.path]).status == 0)
        let holderPrivate = out.appendingPathComponent("holder.jwk").path
        // The reference verifies KB-JWTs with ES256 only: the holder key is its own P-256 key.
        let claimsFile = out.appendingPathComponent("claims.json")
        try Data(CLISDJWTTests.claims.utf8).write(to: claimsFile)
        let issued = try await CLI.run(
            [
                "sd-jwt", "issue", "--key", "Keys/p256.pem", "--claims", claimsFile.path, "--sd", "/given_name", "--sd", "/address",
                "--sd", "/address/locality", "--sd", "/nationalities/0", "--sd", "/nationalities/1", "--decoys", "3", "--holder-key", holderPrivate,
            ])
        try #require(issued.status == 0, "\(issued.stderr)")
        let issuedFile = out.appendingPathComponent("issued.txt")
        try Data(issued.stdout.utf8).write(to: issuedFile)
        let issuerKey = "Keys/p256.pub.jwk"

        // Everything disclosed, no key binding.
        let all = try await SDJWTReference.run(["verify", issuedFile.path, issuerKey])
        try #require(all.status == 0, "\(all.stderr)")
        let mine = try await CLI.run(["--as", "sd-jwt", "--key", issuerKey, "--json", issued.stdout.trimmingCharacters(in: .whitespacesAndNewlines)])
        let mineClaims = try #require(mine.json?["claims"])
        let mineText = String(decoding: try JSONSerialization.data(withJSONObject: mineClaims, options: [.sortedKeys]), as: UTF8.self)
        #expect(try SDJWTReference.normalised(all.stdout) == mineText)

        // A subset with a KB-JWT made here.
        let presented = try await CLI.run(
            [
                "sd-jwt", "present", "--disclose", "/address/locality", "--disclose", "/nationalities/1", "--holder-key", holderPrivate,
                "--aud", "https://verifier.example", "--nonce", "nonce-42",
                issuedFile.path == "" ? "-" : issued.stdout.trimmingCharacters(in: .whitespacesAndNewlines),
            ])
        try #require(presented.status == 0, "\(presented.stderr)")
        let presentedFile = out.appendingPathComponent("presented.txt")
        try Data(presented.stdout.utf8).write(to: presentedFile)
        let there = try await SDJWTReference.run(["verify", presentedFile.path, issuerKey, "https://verifier.example", "nonce-42"])
        try #require(there.status == 0, "\(there.stderr)")
        let thereClaims = try #require(try JSONSerialization.jsonObject(with: Data(there.stdout.utf8)) as? [String: Any])
        #expect(thereClaims["given_name"] == nil)
        #expect((thereClaims["address"] as? [String: Any])?["locality"] as? String == "Köln")
        #expect(thereClaims["nationalities"] as? [String] == ["FR"])
        // The reference refuses a wrong nonce too: the binding is really checked there.
        #expect(try await SDJWTReference.run(["verify", presentedFile.path, issuerKey, "https://verifier.example", "other"]).status == 1)

        // Key binding the other way: the reference presents our SD-JWT with its KB-JWT, verified here.
        let theirs = try await SDJWTReference.run(
            ["present", issuedFile.path, #"{"given_name": true, "address": {"locality": true}}"#, holderPrivate, "https://verifier.example", "n-7"])
        try #require(theirs.status == 0, "\(theirs.stderr)")
        let back = try await CLI.run(
            [
                "--as", "sd-jwt", "--key", issuerKey, "--json", "--aud", "https://verifier.example", "--nonce", "n-7",
                theirs.stdout.trimmingCharacters(in: .whitespacesAndNewlines),
            ])
        #expect(back.status == 0, "\(back.stdout)")
        let backClaims = try #require(back.json?["claims"] as? [String: Any])
        #expect(backClaims["given_name"] as? String == "Erika")
        #expect((backClaims["address"] as? [String: Any])?["locality"] as? String == "Köln")
        #expect(backClaims["family_name"] as? String == "Mustermann")
    }
}
