import Foundation
import JOSE
import OIDC
import TestProcesses
import Testing

/// The FAPI samples, run as a script would run them, against glewlwyd (built by
/// `swift build`). In the serialized glewlwyd FAPI suite: glewlwyd lists only a client's
/// newest CIBA request to the user, so two CIBA logins of one client must not overlap.
extension GlewlwydSerial.GlewlwydFAPITests {
    static let sampleBinaries = Provider.repository.appendingPathComponent(".build/debug")

    /// Runs a built sample: exit status, standard output, standard error.
    static func runSample(_ sample: String, _ arguments: [String]) async throws -> (status: Int32, out: String, err: String) {
        let path = sampleBinaries.appendingPathComponent(sample).path
        try #require(FileManager.default.isExecutableFile(atPath: path), "\(sample) is not built")
        let child = try await ChildProcess.run(URL(fileURLWithPath: path), arguments)
        return (child.status, child.output, child.errors)
    }

    @Test("samples: login in one process (PAR, new DPoP key file), finish in another (DPoP tokens, userinfo); usage errors exit 2")
    func samplesLoginAndFinish() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("fapi-samples-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let issuer = try Glewlwyd.value("GLEWLWYD_ISSUER"), clientID = try Glewlwyd.value("GLEWLWYD_PKJWT_CLIENT_ID")
        let key = try Glewlwyd.value("GLEWLWYD_PKJWT_KEY_FILE")
        let dpop = directory.appendingPathComponent("dpop.jwk").path, pending = directory.appendingPathComponent("pending.json").path
        let tokens = directory.appendingPathComponent("tokens.json").path
        let login = try await Self.runSample(
            "sample-fapi-login",
            [
                "--issuer", issuer, "--client-id", clientID, "--client-key", key,
                "--redirect-uri", try Glewlwyd.value("GLEWLWYD_REDIRECT_URI"), "--dpop-key", dpop,
                "--pending", pending, "--assertion-audience", "endpoint",
            ])
        try #require(login.status == 0, "sample-fapi-login: \(login.err)")
        let printed = try JSONParser.parseObject(Array(login.out.utf8), what: "output")
        #expect(Set(printed.map(\.name)) == ["url", "state"])
        #expect(try DPoPKey(key: JWK(json: String(contentsOfFile: dpop, encoding: .utf8))).algorithm == .es256)
        let url = try #require(printed["url"]?.stringValue.flatMap(URL.init(string:)))
        let query = try #require(URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems).map(\.name)
        #expect(query == ["client_id", "request_uri"])
        let callback = try await Glewlwyd.login(url, scope: "openid")

        let finish = try await Self.runSample(
            "sample-fapi-finish",
            [
                "--issuer", issuer, "--client-id", clientID, "--client-key", key, "--dpop-key", dpop,
                "--pending", pending, "--callback", callback.absoluteString, "--save-tokens", tokens,
                "--assertion-audience", "endpoint",
            ])
        try #require(finish.status == 0, "sample-fapi-finish: \(finish.err)")
        let result = try JSONParser.parseObject(Array(finish.out.utf8), what: "output")
        #expect(result["token_type"] == "DPoP")
        #expect(
            result["id_token_claims"]?.objectValue?["sub"] != nil && result["userinfo"]?.objectValue?["sub"] == result["id_token_claims"]?.objectValue?["sub"])
        let saved = try TokenResponse(storedJSON: JSONParser.parseObject(Array(try String(contentsOfFile: tokens, encoding: .utf8).utf8), what: "tokens"))
        #expect(!finish.out.contains(saved.accessToken))

        await #expect(try Self.runSample("sample-fapi-finish", ["--issuer", issuer]).status == 2)
        await #expect(
            try Self.runSample(
                "sample-fapi-login",
                [
                    "--issuer", issuer, "--client-id", clientID, "--client-key", key, "--redirect-uri", "x",
                    "--dpop-key", dpop, "--pending", pending, "--assertion-audience", "both",
                ]
            ).status == 2)
    }

    @Test("samples: sample-ciba: approval prints the ID Token's claims; denial prints access_denied and exits 1", arguments: [false, true])
    func sampleCIBA(deny: Bool) async throws {
        let clientID = try Glewlwyd.value("GLEWLWYD_CIBA_CLIENT_ID")
        let message = "S" + String(UUID().uuidString.prefix(8))  // alice's approval picks this request
        let arguments = [
            "--issuer", try Glewlwyd.value("GLEWLWYD_ISSUER"), "--client-id", clientID,
            "--client-secret", try Glewlwyd.value("GLEWLWYD_CIBA_CLIENT_SECRET"), "--login-hint", #"{"username":"alice"}"#,
            "--binding-message", message,
        ]
        // alice's session is open before the sample starts (glewlwyd's concurrent-write race); then
        // glewlwyd_user.py looks for the sample's pending request until its deadline (the sample is a
        // separate process that may start slowly on a loaded machine): no fixed head start here.
        let result = try await Glewlwyd.userApproving(
            ["ciba", "--client-id", clientID, "--scope", "openid", "--binding-message", message]
                + (deny ? ["--deny"] : [])
        ) {
            try await Self.runSample("sample-ciba", arguments)
        }
        if deny {
            #expect(result.status == 1 && result.err.contains("access_denied") && result.out.isEmpty)
        } else {
            #expect(result.status == 0, "\(result.err)")
            let claims = try JSONParser.parseObject(Array(result.out.utf8), what: "output")["id_token_claims"]?.objectValue
            #expect(claims?["aud"]?.stringValue == clientID)
        }
    }
}
