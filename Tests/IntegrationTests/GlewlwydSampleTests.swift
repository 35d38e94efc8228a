import Foundation
import JOSE
import OIDC
import TestProcesses
import Testing

extension GlewlwydSerial {
    /// The service samples' contracts (Samples/README.md), run as a script would against glewlwyd.
    @Suite("glewlwyd: sample-client-credentials and sample-resource-server", .enabled(if: Glewlwyd.isRunning), .serialized)
    struct GlewlwydSampleTests {
        struct Run {
            let status: Int32
            let stdout: String
            let stderr: String
            var json: JSONObject? { try? JSONParser.parseObject(Array(stdout.utf8), what: "sample output") }
        }

        /// Runs a built sample (next to the test bundle, else .build/debug).
        static func run(_ name: String, _ arguments: [String], stdin: String = "") async throws -> Run {
            let candidates = [
                URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent(name),
                Provider.repository.appendingPathComponent(".build/debug/\(name)"),
            ]
            guard let executable = candidates.first(where: { FileManager.default.isExecutableFile(atPath: $0.path) }) else {
                throw CLIError("\(name) is not built: run `swift build` (Tests/run.sh does) before the tests")
            }
            let child = try await ChildProcess.run(executable, arguments, stdin: Data(stdin.utf8))
            return Run(status: child.status, stdout: child.output.trimmingCharacters(in: .whitespacesAndNewlines), stderr: child.errors)
        }

        @Test("sample-client-credentials prints token_type, expires_in and scope, never the token; exit 1 on a refused client, 2 on usage")
        func clientCredentials() async throws {
            let issuer = try #require(Glewlwyd.issuer)
            let ok = try await Self.run(
                "sample-client-credentials",
                [
                    "--issuer", issuer, "--client-id", try Glewlwyd.value("GLEWLWYD_ES256_CLIENT_ID"),
                    "--client-secret", try Glewlwyd.value("GLEWLWYD_ES256_CLIENT_SECRET"),
                    "--scope", "api.read", "--resource", try Glewlwyd.resource.absoluteString,
                ])
            #expect(ok.status == 0, "\(ok.stderr)")
            let json = try #require(ok.json)
            #expect(json.map(\.name) == ["token_type", "expires_in", "scope"])
            #expect(json["token_type"]?.stringValue?.lowercased() == "bearer" && json["scope"]?.stringValue == "api.read")
            #expect((json["expires_in"]?.int64Value ?? 0) > 0)
            #expect(!ok.stdout.contains("eyJ"))
            let refused = try await Self.run("sample-client-credentials", ["--issuer", issuer, "--client-id", "nobody", "--client-secret", "x"])
            #expect(refused.status == 1 && refused.stdout.isEmpty && !refused.stderr.isEmpty)
            await #expect(try Self.run("sample-client-credentials", ["--issuer", issuer]).status == 2)
        }

        @Test("sample-resource-server: exit 0 with the token's facts, 1 with active false and the reason, 2 on usage; JWT and introspection")
        func resourceServer() async throws {
            let issuer = try #require(Glewlwyd.issuer)
            let resource = try Glewlwyd.resource.absoluteString
            let token = try await Glewlwyd.client("SECRET").clientCredentials(scope: "api.read", resources: [try Glewlwyd.resource]).accessToken
            let clientID = try Glewlwyd.value("GLEWLWYD_SECRET_CLIENT_ID")
            let introspect = ["--introspect", "--client-id", clientID, "--client-secret", try Glewlwyd.value("GLEWLWYD_SECRET_CLIENT_SECRET")]
            for extra in [[], introspect] {
                let valid = try await Self.run(
                    "sample-resource-server", ["--issuer", issuer, "--audience", resource, "--require-scope", "api.read"] + extra,
                    stdin: token + "\n")
                #expect(valid.status == 0, "\(valid.stderr)")
                let json = try #require(valid.json)
                #expect(json.map(\.name) == ["active", "sub", "client_id", "scope", "cnf"])
                #expect(json["active"] == .bool(true) && json["client_id"]?.stringValue == clientID && json["scope"] == .array(["api.read"]))

                let scope = try await Self.run(
                    "sample-resource-server", ["--issuer", issuer, "--audience", resource, "--require-scope", "api.write"] + extra,
                    stdin: token)
                #expect(scope.status == 1 && scope.json?["active"] == .bool(false))
                #expect(scope.stderr.contains("insufficient_scope") && scope.stderr.contains("403"))
            }
            let wrongAudience = try await Self.run("sample-resource-server", ["--issuer", issuer, "--audience", "https://other.example"], stdin: token)
            #expect(wrongAudience.status == 1 && wrongAudience.stderr.contains("audience_mismatch"))
            await #expect(try Self.run("sample-resource-server", ["--issuer", issuer], stdin: token).status == 2)
            await #expect(try Self.run("sample-resource-server", ["--issuer", issuer, "--audience", resource], stdin: "").status == 2)
        }
    }
}
