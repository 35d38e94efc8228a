import Foundation
import JOSE
import OIDC
import Testing

/// Every runnable row of ``RPToolTable`` against the OpenID Foundation RP test tool: the client registers itself
/// (RFC 7591), logs in, and must end as the row says: accepted, or refused with that typed code. Serialized: the
/// tool (CherryPy, one shared state) answered concurrent first requests to fresh test instances with errors.
@Suite("OpenID Foundation RP tests", .serialized, .enabled(if: RPTool.isRunning, "the RP test tool is not running (Tests/RPTool/start.sh needs Python 3.7)"))
struct RPToolTests {
    static let runnable = RPToolTable.cases.filter {
        if case .notRun = $0.expect { return false }; return true
    }

    @Test("RP test id", arguments: runnable)
    func rpTest(_ testCase: RPToolCase) async throws {
        let (outcome, detail) = try await RPTool.run(testCase)
        switch testCase.expect {
        case .accepted:
            #expect(outcome == .accepted, "\(testCase.id): \(detail)")
        case .refused(let codes):
            let allowed = codes.components(separatedBy: " or ").map { RPTool.Outcome.refused($0) }
            #expect(allowed.contains(outcome), "\(testCase.id): \(outcome) is not \(codes): \(detail)")
        case .notRun:
            Issue.record("not runnable")
        }
    }
}

/// The samples against the tool's TLS instance, trusting its test CA with `--ca-file`.
@Suite("Samples against the RP test tool over TLS", .enabled(if: RPTool.tlsBase != nil, "the RP test tool's TLS instance is not running"))
struct RPToolSampleTests {
    @Test func sampleAuthorizeURLWithWebFinger() async throws {
        let base = try #require(RPTool.tlsBase), ca = try #require(RPTool.tlsCA)
        let url = try #require(URL(string: base)), host = try #require(url.host(percentEncoded: false)), port = try #require(url.port)
        // The tool's TLS instance is on loopback: the sample's fetch policy admits it only by name.
        let common = ["--client-id", "c", "--redirect-uri", RPTool.redirectURI.absoluteString, "--ca-file", ca, "--allow-host", "\(host):\(port)"]
        let accepted = try await SampleRunner.run(
            "sample-authorize-url", ["--webfinger", "acct:\(RPTool.rpID).rp-discovery-webfinger-acct@\(host):\(port)"] + common)
        #expect(accepted.status == 0, "\(accepted.error)")
        let output = try JSONParser.parseObject(Array(accepted.output.utf8), what: "stdout")
        #expect(output["issuer"]?.stringValue == "\(base)/\(RPTool.rpID)/rp-discovery-webfinger-acct")
        #expect(output["url"]?.stringValue?.hasPrefix("\(base)/\(RPTool.rpID)/rp-discovery-webfinger-acct/") == true)
        let byURL = try await SampleRunner.run("sample-authorize-url", ["--webfinger", "\(base)/\(RPTool.rpID)/rp-discovery-webfinger-url"] + common)
        #expect(byURL.status == 0, "\(byURL.error)")

        let http = try await SampleRunner.run(
            "sample-authorize-url", ["--webfinger", "acct:\(RPTool.rpID).rp-discovery-webfinger-http-href@\(host):\(port)"] + common)
        #expect(http.status == 1)
        #expect(http.error.contains("webfinger_insecure_issuer"), "\(http.error)")
        // Without the CA the tool's certificate is not trusted: a transport failure, exit 1.
        let untrusted = try await SampleRunner.run(
            "sample-authorize-url",
            [
                "--webfinger", "acct:\(RPTool.rpID).rp-discovery-webfinger-acct@\(host):\(port)",
                "--client-id", "c", "--redirect-uri", RPTool.redirectURI.absoluteString,
                "--allow-host", "\(host):\(port)",
            ])
        #expect(untrusted.status == 1)
        #expect(untrusted.error.contains("webfinger_transport_failed"), "\(untrusted.error)")
        // Without --allow-host the loopback tool is refused before any request.
        let refused = try await SampleRunner.run(
            "sample-authorize-url",
            [
                "--webfinger", "acct:\(RPTool.rpID).rp-discovery-webfinger-acct@\(host):\(port)",
                "--client-id", "c", "--redirect-uri", RPTool.redirectURI.absoluteString, "--ca-file", ca,
            ])
        #expect(refused.status == 1)
        #expect(refused.error.hasPrefix("sample-authorize-url: webfinger_host_refused: "), "\(refused.error)")
    }

    /// `sample-authorize-url --request-object signed+encrypted`: the URL it prints logs in at the tool (which decrypts the
    /// request object with its current key, verifies the client's signature and reads every parameter from it).
    @Test func sampleAuthorizeURLWithEncryptedRequestObject() async throws {
        let issuer = try RPTool.issuer("rp-request_uri-sig+enc")
        var key = try JWK.generate(.rsa(bits: 2048))
        key.use = "sig"
        key.keyID = "sample-request-object"
        var metadata = ClientMetadata(redirectURIs: [RPTool.redirectURI])
        metadata.contacts = ["rp-tests@example.org"]
        metadata.jwks = [key]
        metadata.requestObjectSigningAlgorithm = "RS256"
        metadata.requestObjectEncryptionAlgorithm = "RSA-OAEP-256"
        metadata.requestObjectEncryptionEncryption = "A128CBC-HS256"
        let (_, registration) = try await OIDCClient.register(issuer: issuer, metadata: metadata, transport: RPTool.transport)
        let keyFile = FileManager.default.temporaryDirectory.appendingPathComponent("rp-sample-request-object-\(UUID().uuidString).jwk")
        try Data(try key.privateJWKString().utf8).write(to: keyFile)
        defer { try? FileManager.default.removeItem(at: keyFile) }
        let result = try await SampleRunner.run(
            "sample-authorize-url",
            [
                "--issuer", issuer, "--client-id", registration.clientID,
                "--redirect-uri", RPTool.redirectURI.absoluteString,
                "--request-object", "signed+encrypted", "--request-object-key", keyFile.path,
            ])
        #expect(result.status == 0, "\(result.error)")
        let output = try JSONParser.parseObject(Array(result.output.utf8), what: "stdout")
        let url = try #require(output["url"]?.stringValue.flatMap { URL(string: $0) })
        let request = try #require(URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems?.first { $0.name == "request" }?.value)
        #expect(try CompactJWE(request).keyAlgorithmName == "RSA-OAEP-256")
        let callback = try await RPTool.authorize(url, transport: RPTool.transport)
        guard case .url(let redirect) = callback else { Issue.record("no redirect: \(callback)"); return }
        let items = URLComponents(url: redirect, resolvingAgainstBaseURL: false)?.queryItems ?? []
        #expect(items.first { $0.name == "state" }?.value == output["state"]?.stringValue)
        #expect(items.contains { $0.name == "code" }, "\(redirect)")
    }

    @Test func sampleRegisterWithCAFile() async throws {
        let base = try #require(RPTool.tlsBase), ca = try #require(RPTool.tlsCA)
        let result = try await SampleRunner.run(
            "sample-register",
            [
                "--issuer", "\(base)/\(RPTool.rpID)/rp-registration-dynamic", "--ca-file", ca,
                "--redirect-uri", RPTool.redirectURI.absoluteString,
                "--metadata", #"{"contacts":["rp-tests@example.org"]}"#,
            ])
        #expect(result.status == 0, "\(result.error)")
        let answer = try JSONParser.parseObject(Array(result.output.utf8), what: "stdout")
        #expect(answer["client_secret"]?.stringValue == "<redacted>")
        #expect(answer["registration_access_token"]?.stringValue == "<redacted>")
        #expect(answer["client_id"]?.stringValue?.isEmpty == false)
    }
}

/// The README's "OpenID Foundation RP tests" table is ``RPToolTable`` rendered: it cannot go stale.
@Suite struct RPToolReadmeTests {
    static func rendered() -> String {
        var lines = ["| Test id | Outcome |", "|---|---|"]
        for row in RPToolTable.cases {
            let outcome: String
            switch row.expect {
            case .accepted: outcome = "passes"
            case .refused(let codes): outcome = "refused as expected (\(codes.components(separatedBy: " or ").map { "`\($0)`" }.joined(separator: " or ")))"
            case .notRun(let why): outcome = "not run: \(why)"
            }
            lines.append("| `\(row.id)` | \(outcome)\(row.note.isEmpty ? "" : "; \(row.note)") |")
        }
        return lines.joined(separator: "\n")
    }

    @Test func readmeTableIsTheTestTable() throws {
        let readme = try String(contentsOf: Provider.repository.appendingPathComponent("README.md"), encoding: .utf8)
        let begin = "<!-- rp-tests:begin -->\n", end = "<!-- rp-tests:end -->"
        let start = try #require(readme.range(of: begin), "README.md has no \(begin)")
        let stop = try #require(readme.range(of: end, range: start.upperBound..<readme.endIndex))
        let table = String(readme[start.upperBound..<stop.lowerBound]).trimmingCharacters(in: .newlines)
        if table != Self.rendered() {
            // The table to paste, for whoever changed RPToolTable.
            let file = FileManager.default.temporaryDirectory.appendingPathComponent("rp-tests-table.md")
            try? Self.rendered().write(to: file, atomically: true, encoding: .utf8)
            Issue.record("README.md's RP test table differs from RPToolTable; the table it should hold is in \(file.path)")
        }
    }
}
