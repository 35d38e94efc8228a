import Foundation
import JOSE
import OIDC
import Testing

extension GlewlwydSerial {
    /// RFC 9396 against glewlwyd (RAR draft 11): the sample contracts end to end, as a script would run them.
    @Suite("glewlwyd: Rich Authorization Requests through the samples", .enabled(if: Glewlwyd.isRunning), .serialized)
    struct GlewlwydRARTests {
        static let details = #"[{"type":"payment_initiation","actions":["initiate"],"locations":["https://api.example.test/payments"]}]"#

        @Test("a RAR login: the granted authorization_details arrive in the token response and in the access token (sample-resource-server)")
        func rarLogin() async throws {
            let issuer = try #require(Glewlwyd.issuer)
            let clientID = try Glewlwyd.value("GLEWLWYD_RAR_CLIENT_ID")
            let redirect = try Glewlwyd.redirectURI.absoluteString
            let start = try await GlewlwydSampleTests.run(
                "sample-authorize-url",
                [
                    "--issuer", issuer, "--client-id", clientID, "--redirect-uri", redirect,
                    "--scope", "openid api.read",
                    "--authorization-details", Self.details,
                ])
            #expect(start.status == 0, "\(start.stderr)")
            let started = try #require(start.json)
            let url = try #require(started["url"]?.stringValue)
            let sent = try #require(URLComponents(string: url)?.queryItems?.first { $0.name == "authorization_details" }?.value)
            #expect(sent == Self.details)  // compact JSON, as given

            let (line, status) = try await Glewlwyd.runScript("login.py", ["--authorize-url", url])
            #expect(status == 0, "login.py: \(line)")
            let code = try #require(URLComponents(string: line)?.queryItems?.first { $0.name == "code" }?.value)
            let tokensFile = FileManager.default.temporaryDirectory.appendingPathComponent("rar-tokens-\(UUID().uuidString).json").path
            defer { try? FileManager.default.removeItem(atPath: tokensFile) }
            let exchange = try await GlewlwydSampleTests.run(
                "sample-exchange-code",
                [
                    "--issuer", issuer, "--client-id", clientID, "--client-secret", try Glewlwyd.value("GLEWLWYD_RAR_CLIENT_SECRET"),
                    "--redirect-uri", redirect, "--code", code, "--code-verifier", try #require(started["code_verifier"]?.stringValue),
                    "--nonce", try #require(started["nonce"]?.stringValue), "--save-tokens", tokensFile,
                ])
            #expect(exchange.status == 0, "\(exchange.stderr)")
            let granted = try AuthorizationDetail.parseArray(try #require(exchange.json?["authorization_details"]), what: "sample-exchange-code")
            #expect(granted == (try AuthorizationDetail.parseArray(jsonText: Self.details)))

            let stored = try JSONParser.parseObject(Array(try Data(contentsOf: URL(fileURLWithPath: tokensFile))), what: "tokens")
            let accessToken = try #require(stored["access_token"]?.stringValue)
            // glewlwyd's access token audience without a resource indicator is the scope list as one string.
            let audience = "openid api.read"
            let checked = try await GlewlwydSampleTests.run(
                "sample-resource-server",
                [
                    "--issuer", issuer, "--audience", audience,
                    "--require-authorization-details-type", "payment_initiation",
                ],
                stdin: accessToken)
            #expect(checked.status == 0, "\(checked.stderr)")
            #expect(try AuthorizationDetail.parseArray(try #require(checked.json?["authorization_details"]), what: "sample-resource-server") == granted)
            let introspected = try await GlewlwydSampleTests.run(
                "sample-resource-server",
                [
                    "--issuer", issuer, "--audience", audience, "--introspect", "--client-id", clientID,
                    "--client-secret", try Glewlwyd.value("GLEWLWYD_RAR_CLIENT_SECRET"), "--require-authorization-details-type", "payment_initiation",
                ],
                stdin: accessToken)
            #expect(introspected.status == 0, "\(introspected.stderr)")
            #expect(try AuthorizationDetail.parseArray(try #require(introspected.json?["authorization_details"]), what: "introspection") == granted)
            let missing = try await GlewlwydSampleTests.run(
                "sample-resource-server",
                [
                    "--issuer", issuer, "--audience", audience,
                    "--require-authorization-details-type", "payment_initiation",
                    "--require-authorization-details-type", "account_information",
                ],
                stdin: accessToken)
            #expect(missing.status == 1 && missing.stderr.contains("insufficient_authorization_details"), "\(missing.stderr)")
            #expect(missing.json?["active"] == .bool(false))
            await #expect(
                try GlewlwydSampleTests.run(
                    "sample-authorize-url",
                    [
                        "--issuer", issuer, "--client-id", clientID, "--redirect-uri", redirect,
                        "--authorization-details", #"[{"actions":["x"]}]"#,
                    ]
                ).status == 2)
        }
    }
}
