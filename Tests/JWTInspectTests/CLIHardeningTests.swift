import Foundation
import JOSE
import Testing

/// Issue 13, jwt-inspect: each test fails (or crashed) on the tool before the fix.
@Suite("jwt-inspect hardening (issue 13)")
struct CLIHardeningTests {
    /// An HS256 token over exactly these payload bytes (signed with Keys/hmac.jwk).
    static func signedRaw(_ payload: String) throws -> String {
        try CompactJWS.sign(payload: Array(payload.utf8), header: ["typ": "JWT"], key: Tokens.key("hmac.jwk"), algorithm: .hs256)
    }

    /// A run ended by a signal (the old SIGILL) reports that signal number as its status.
    static func expectNoCrash(_ run: CLI.Result, _ allowed: Set<Int32>, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(allowed.contains(run.status), "status \(run.status), stderr: \(run.stderr)", sourceLocation: sourceLocation)
    }

    // MARK: large time values

    static let hugeTimes = [
        #"{"sub":"a","exp":1e27}"#, #"{"sub":"a","exp":123456789012345678901234567890}"#,
        #"{"sub":"a","exp":1900000000,"iat":1e300}"#, #"{"sub":"a","exp":1900000000,"auth_time":1e27}"#,
        #"{"sub":"a","exp":1900000000,"nbf":-1e30}"#, #"{"sub":"a","exp":-123456789012345678901234567890}"#,
    ]

    /// A NumericDate beyond 9999-12-31T23:59:59Z or before 0 is a claim type error (JOSE's one rule),
    /// so a token with such an `exp`, `nbf` or `iat` is INVALID, never "expires in 3e22 years". `auth_time`
    /// is judged where a token kind uses it (``idTokenAuthTimeOutOfRange()``).
    @Test(
        "huge exp/nbf/iat/auth_time never crash, with or without a key, human or JSON; out-of-range times are invalid",
        arguments: hugeTimes)
    func hugeTimeClaims(_ payload: String) async throws {
        let token = try Self.signedRaw(payload)
        let judged = !payload.contains("auth_time")
        for arguments in [[], ["--key", "Keys/hmac.jwk"], ["--json", "--key", "Keys/hmac.jwk"], ["--now", "1e30"], ["--now", "-1e30"]] {
            let run = try await CLI.run(["--now", "\(Tokens.now)"] + arguments + [token])
            Self.expectNoCrash(run, judged ? [1] : [0, 1])
            #expect(!run.stdout.isEmpty)
            if judged, arguments.first == "--json" { #expect(run.reason == "claim_type_mismatch", "\(run.stdout)") }
        }
    }

    @Test("--as id-token: auth_time 1e27 is a claim type error (outside the NumericDate range)")
    func idTokenAuthTimeOutOfRange() async throws {
        let token = try Self.signedRaw(
            #"{"iss":"https://as.example","sub":"a","aud":"rp","iat":\#(Tokens.now - 10),"exp":\#(Tokens.now + 600),"auth_time":1e27}"#)
        let run = try await CLI.run([
            "--json", "--now", "\(Tokens.now)", "--key", "Keys/hmac.jwk", "--as", "id-token", "--iss", "https://as.example",
            "--aud", "rp", token,
        ])
        #expect(run.status == 1, "\(run.stdout)")
        #expect(run.reason == "claim_type_mismatch", "\(run.stdout)")
        #expect(run.stderr.contains("auth_time") && run.stderr.contains("NumericDate range"), "\(run.stderr)")
    }

    @Test("--now 1e30: the token is expired (exit 1), no crash")
    func nowFarAway() async throws {
        let token = try Tokens.sign(.hs256, key: "hmac.jwk")
        let run = try await CLI.run(["--json", "--now", "1e30", "--key", "Keys/hmac.jwk", token])
        #expect(run.status == 1, "\(run.stderr)")
        #expect(run.reason == "expired")
        let human = try await CLI.run(["--now", "1e30", token])
        Self.expectNoCrash(human, [0, 1])
        #expect(human.stdout.contains("years ago"))
    }

    @Test("--leeway must be a number from 0 to one day", arguments: ["nan", "-1", "1e300", "86401", "inf"])
    func leewayRange(_ value: String) async throws {
        let run = try await CLI.run(["--leeway", value, try Tokens.sign(.hs256, key: "hmac.jwk")])
        #expect(run.status == 2, "\(run.stdout)")
    }

    // MARK: the library's verdict

    static let rejectedPayloads = [
        #"{"sub":"alice","sub":"mallory","exp":1900000000}"#,
        #"{"sub":"\ud800","exp":1900000000}"#,
        String(repeating: #"{"a":"#, count: 40) + "1" + String(repeating: "}", count: 40),
        #"["not","an","object"]"#,
        #"{"exp":"tomorrow"}"#,
    ]

    @Test("a signed payload the library rejects is INVALID with the library's reason", arguments: rejectedPayloads)
    func libraryVerdict(_ payload: String) async throws {
        let token = try Self.signedRaw(payload)
        var expected: String?
        do {
            _ = try JWT.verifyIgnoringIssuerAndAudience(
                token, key: Tokens.key("hmac.jwk"),
                validation: JWTValidationPolicy(clock: { Date(timeIntervalSince1970: TimeInterval(Tokens.now)) }))
        } catch let error as JOSEError {
            expected = error.code.rawValue
        }
        #expect(expected != nil, "JWT.verify accepted \(payload)")
        let run = try await CLI.run(["--json", "--now", "\(Tokens.now)", "--key", "Keys/hmac.jwk", token])
        #expect(run.status == 1, "\(run.stdout)")
        #expect(run.result == "invalid")
        #expect(run.reason == expected)
        let human = try await CLI.run(["--now", "\(Tokens.now)", "--key", "Keys/hmac.jwk", token])
        #expect(human.status == 1)
        #expect(human.stdout.contains("INVALID") && !human.stdout.contains("VALID: signature"))
    }

    @Test("the CLI and JWT.verify agree on time claims at the leeway edges", arguments: [-61, -60, -59, 0, 59, 60, 61])
    func timeEdges(_ offset: Int64) async throws {
        for name in ["exp", "nbf", "iat"] {
            let token = try Tokens.sign(.hs256, key: "hmac.jwk", claims: [name: .integer(Tokens.now + offset)])
            let validation = JWTValidationPolicy(clock: { Date(timeIntervalSince1970: TimeInterval(Tokens.now)) })
            let library = (try? JWT.verifyIgnoringIssuerAndAudience(token, key: Tokens.key("hmac.jwk"), validation: validation)) != nil
            let run = try await CLI.run(["--json", "--now", "\(Tokens.now)", "--key", "Keys/hmac.jwk", token])
            #expect(run.status == (library ? 0 : 1), "\(name) \(offset): \(run.stdout)")
        }
    }

    // MARK: terminal escapes

    @Test("control characters, C1 and bidi overrides from the token are escaped in the human view")
    func terminalEscapes() async throws {
        let hostile = "\u{1B}]0;pwned\u{07}\u{9B}31m\u{202E}evil\u{7F}"
        let claims = Tokens.claims([("sub", .string(hostile)), ("iss", .string("x\u{1B}[2J"))])
        let token = try Tokens.sign(.hs256, key: "hmac.jwk", claims: claims)
        let notJSON = try CompactJWS.sign(payload: Array("plain \u{1B}[2J text \u{9B}".utf8), key: Tokens.key("hmac.jwk"), algorithm: .hs256)
        for run in await [
            try CLI.run(["--now", "\(Tokens.now)", "--key", "Keys/hmac.jwk", "--iss", "y", token]),
            try await CLI.run(["--now", "\(Tokens.now)", notJSON]),
        ] {
            for bad in ["\u{1B}", "\u{9B}", "\u{202E}", "\u{07}", "\u{7F}"] {
                #expect(!run.stdout.contains(bad) && !run.stderr.contains(bad), "raw \(bad.unicodeScalars.first!.value) in output")
            }
        }
        let json = try await CLI.run(["--json", "--now", "\(Tokens.now)", token])
        #expect(json.json?["payload"].flatMap { ($0 as? [String: Any])?["sub"] as? String } == hostile)  // JSON stays exact
    }

    @Test("the tool's sources make no Glibc.-qualified calls (the package builds on macOS)")
    func noQualifiedGlibc() throws {
        let folder = CLI.repository.appendingPathComponent("Sources/jwt-inspect")
        for name in try FileManager.default.contentsOfDirectory(atPath: folder.path) where name.hasSuffix(".swift") {
            let text = try String(contentsOf: folder.appendingPathComponent(name), encoding: .utf8)
            #expect(!text.contains("Glibc."), "\(name)")
        }
    }
}

@Suite(
    "jwt-inspect against misbehaving servers (issue 13)",
    .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/python3") || ProcessInfo.processInfo.environment["CI"] == "true"))
struct CLIServerHardeningTests {
    static func keySet() throws -> String { try CLINetworkTests.publicSet() }

    static let badResponses: [(String, String)] = [
        ("content-length-negative", "HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n{\"keys\":[]}"),
        ("chunk-negative", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n-1\r\n{\"keys\":[]}\r\n0\r\n\r\n"),
        ("chunk-huge", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n7fffffffffffffff\r\n{\"keys\":[]}\r\n0\r\n\r\n"),
        ("chunk-overflow", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nffffffffffffffffff\r\n{}\r\n0\r\n\r\n"),
        ("content-length-huge", "HTTP/1.1 200 OK\r\nContent-Length: 99999999999999999999\r\n\r\n{\"keys\":[]}"),
        ("content-length-twice", "HTTP/1.1 200 OK\r\nContent-Length: 11\r\nContent-Length: 2\r\n\r\n{\"keys\":[]}"),
        ("length-and-chunked", "HTTP/1.1 200 OK\r\nContent-Length: 11\r\nTransfer-Encoding: chunked\r\n\r\nb\r\n{\"keys\":[]}\r\n0\r\n\r\n"),
        ("escape-in-header", "HTTP/1.1 200 OK\r\nTransfer-Encoding: \u{1B}]0;pwned\u{07}\r\n\r\n{}"),
    ]

    @Test("bad lengths, chunk sizes and conflicting headers are refused (exit 2, no crash)", arguments: badResponses.map(\.0))
    func badLengths(_ name: String) async throws {
        let server = try await ScriptedServer()
        try server.script(name, try #require(Self.badResponses.first { $0.0 == name }).1)
        let run = try await CLI.run(["--jwks-url", "\(server.base)/\(name)", try Tokens.sign(.rs256, key: "rsa2048.pem")])
        #expect(run.status == 2, "stdout: \(run.stdout) stderr: \(run.stderr)")
        #expect(run.stderr.contains("invalid HTTP response"), "\(run.stderr)")
        #expect(!run.stderr.contains("\u{1B}"))
    }

    @Test("a well-formed chunked JWK Set is read")
    func chunked() async throws {
        let server = try await ScriptedServer()
        let body = try Self.keySet()
        let half = body.utf8.count / 2
        let first = String(decoding: Array(body.utf8)[..<half], as: UTF8.self), second = String(decoding: Array(body.utf8)[half...], as: UTF8.self)
        try server.script(
            "jwks",
            "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
                + String(first.utf8.count, radix: 16) + ";ext=1\r\n" + first + "\r\n"
                + String(second.utf8.count, radix: 16) + "\r\n" + second + "\r\n0\r\n\r\n")
        let token = try Tokens.sign(.rs256, key: "rsa2048.pem", kid: Tokens.key("rsa2048.pub.jwk").keyID)
        let run = try await CLI.run(["--json", "--now", "\(Tokens.now)", "--jwks-url", "\(server.base)/jwks", token])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.result == "valid")
    }

    @Test("URLs with CR/LF, spaces or controls are refused before any request", arguments: ["/jwks\r\nX-Injected: 1", "/jw ks", "/jwks\u{1B}[2J", "/jwks\t"])
    func urlCharacters(_ path: String) async throws {
        let server = try await ScriptedServer()
        try server.script("jwks", ScriptedServer.ok(try Self.keySet()))
        let token = try Tokens.sign(.rs256, key: "rsa2048.pem")
        for flag in ["--jwks-url", "--issuer"] {
            let run = try await CLI.run([flag, server.base + path, token])
            #expect(run.status == 2, "\(run.stdout)")
            #expect(!run.stderr.contains("\u{1B}") && !run.stderr.contains("\r"))
        }
        #expect(server.requests.isEmpty, "\(server.requests)")
    }

    @Test("http is refused for hosts that are not loopback", arguments: ["--jwks-url", "--issuer"])
    func cleartext(_ flag: String) async throws {
        let run = try await CLI.run([flag, "http://example.com/jwks.json", try Tokens.sign(.rs256, key: "rsa2048.pem")])
        #expect(run.status == 2)
        #expect(run.stderr.contains("https is required"), "\(run.stderr)")
    }

    static func discovery(_ issuer: String, jwksURI: String) -> String {
        #"{"issuer":"\#(issuer)","jwks_uri":"\#(jwksURI)","authorization_endpoint":"\#(issuer)/authorize","#
            + #""response_types_supported":["code"],"subject_types_supported":["public"],"#
            + #""id_token_signing_alg_values_supported":["RS256","ES256"]}"#
    }

    @Test("a discovered jwks_uri must be https too (the library's rule)")
    func discoveredCleartext() async throws {
        let server = try await ScriptedServer()
        try server.script(".well-known_openid-configuration", ScriptedServer.ok(Self.discovery(server.base, jwksURI: "http://example.com/jwks.json")))
        let run = try await CLI.run(["--issuer", server.base, try Tokens.sign(.rs256, key: "rsa2048.pem")])
        #expect(run.status == 2)
        #expect(run.stderr.contains("https is required"), "\(run.stderr)")
    }

    @Test("discovery is OIDC's: a document lacking required fields is refused")
    func discoveryRequiredFields() async throws {
        let server = try await ScriptedServer()
        try server.script("jwks", ScriptedServer.ok(try Self.keySet()))
        try server.script(".well-known_openid-configuration", ScriptedServer.ok(#"{"issuer":"\#(server.base)","jwks_uri":"\#(server.base)/jwks"}"#))
        let run = try await CLI.run(["--issuer", server.base, try Tokens.sign(.rs256, key: "rsa2048.pem")])
        #expect(run.status == 2)
        #expect(run.stderr.contains("discovery_missing_field"), "\(run.stderr)")
    }

    @Test("one deadline per fetch: a server dripping a byte a second is cut off (JWT_INSPECT_TIMEOUT=1)")
    func drippingServer() async throws {
        let server = try await ScriptedServer(dripSeconds: 1)
        try server.script("drip-jwks", ScriptedServer.ok(try Self.keySet()))
        let token = try Tokens.sign(.rs256, key: "rsa2048.pem", kid: Tokens.key("rsa2048.pub.jwk").keyID)
        let run = try await CLI.run(["--jwks-url", "\(server.base)/drip-jwks", token], environment: ["JWT_INSPECT_TIMEOUT": "1"])
        #expect(run.status == 2, "\(run.stdout)")
        #expect(run.stderr.contains("timed out"), "\(run.stderr)")
    }
}
