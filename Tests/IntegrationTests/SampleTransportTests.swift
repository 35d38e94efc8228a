import Foundation
import OIDCTLSTransport
import Testing

/// The `--ca-file` (and mTLS client certificate) contract of the four samples that share
/// SampleSupport's `SampleTransport`: a CA file or certificate that cannot be used exits 2 with each
/// sample's own wording of LibSSLTransport's error, before any network traffic (offline).
@Suite("samples: an unusable --ca-file or client certificate exits 2 with the sample's message")
struct SampleTransportTests {
    /// A file in the temporary directory holding `text` (not a certificate), or a path that does not exist.
    static func file(_ text: String?) throws -> String {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("sample-transport-\(UUID().uuidString).pem")
        if let text { try Data(text.utf8).write(to: url) }
        return url.path
    }

    /// LibSSLTransport's own text for the failure, which the samples pass on unchanged.
    static func libsslError(caFile: String?, certificate: String? = nil, key: String? = nil) -> String {
        do {
            _ = try LibSSLTransport(
                clientIdentity: certificate.map { LibSSLTransport.ClientIdentity(certificateFile: $0, privateKeyFile: key ?? $0) },
                serverTrust: caFile.map { .caFile($0) } ?? .system)
            return "(no error)"
        } catch {
            return "\(error)"
        }
    }

    static let issuer = "https://127.0.0.1:1"

    @Test("sample-authorize-url and sample-register: `NAME: --ca-file FILE cannot be used: ERROR`, then the usage", arguments: [nil, "not a certificate\n"])
    func authorizeURLAndRegister(content: String?) async throws {
        let caFile = try Self.file(content)
        defer { try? FileManager.default.removeItem(atPath: caFile) }
        let error = Self.libsslError(caFile: caFile)
        #expect(error != "(no error)")
        let runs = await [
            (
                "sample-authorize-url",
                try GlewlwydSerial.GlewlwydSampleTests.run(
                    "sample-authorize-url",
                    [
                        "--issuer", Self.issuer, "--client-id", "c", "--redirect-uri", "https://app.example/cb", "--ca-file", caFile,
                    ])
            ),
            (
                "sample-register",
                try GlewlwydSerial.GlewlwydSampleTests.run(
                    "sample-register",
                    [
                        "--issuer", Self.issuer, "--redirect-uri", "https://app.example/cb", "--ca-file", caFile,
                    ])
            ),
        ]
        for (name, run) in runs {
            #expect(run.status == 2, "\(name): \(run.stderr)")
            #expect(run.stdout.isEmpty, "\(name): \(run.stdout)")
            #expect(run.stderr.hasPrefix("\(name): --ca-file \(caFile) cannot be used: \(error)\nusage: \(name) "), "\(name): \(run.stderr)")
        }
    }

    @Test("sample-resource-server: `sample-resource-server: --ca-file FILE: ERROR`, then the usage line", arguments: [nil, "not a certificate\n"])
    func resourceServer(content: String?) async throws {
        let caFile = try Self.file(content)
        defer { try? FileManager.default.removeItem(atPath: caFile) }
        let error = Self.libsslError(caFile: caFile)
        let run = try await GlewlwydSerial.GlewlwydSampleTests.run(
            "sample-resource-server", ["--issuer", Self.issuer, "--audience", "https://api.example", "--ca-file", caFile],
            stdin: "token\n")
        #expect(run.status == 2, "\(run.stderr)")
        #expect(run.stdout.isEmpty, "\(run.stdout)")
        #expect(run.stderr.hasPrefix("sample-resource-server: --ca-file \(caFile): \(error)\nusage: sample-resource-server "), "\(run.stderr)")
    }

    @Test("sample-exchange-code: `sample-exchange-code: ERROR` alone, for a bad --ca-file and for a bad tls_client_auth certificate")
    func exchangeCode() async throws {
        let common = ["--issuer", Self.issuer, "--client-id", "c", "--redirect-uri", "https://app.example/cb", "--code", "x", "--code-verifier", "v"]
        for content in [nil, "not a certificate\n"] {
            let caFile = try Self.file(content)
            defer { try? FileManager.default.removeItem(atPath: caFile) }
            let run = try await GlewlwydSerial.GlewlwydSampleTests.run("sample-exchange-code", common + ["--client-secret", "s", "--ca-file", caFile])
            #expect(run.status == 2, "\(run.stderr)")
            #expect(run.stdout.isEmpty, "\(run.stdout)")
            #expect(run.stderr == "sample-exchange-code: \(Self.libsslError(caFile: caFile))\n", "\(run.stderr)")
        }
        let certificate = try Self.file("not a certificate\n"), key = try Self.file("not a key\n")
        defer { for path in [certificate, key] { try? FileManager.default.removeItem(atPath: path) } }
        let mutualTLS = ["--client-auth", "tls_client_auth", "--client-cert", certificate, "--client-key", key]
        let run = try await GlewlwydSerial.GlewlwydSampleTests.run("sample-exchange-code", common + mutualTLS)
        #expect(run.status == 2, "\(run.stderr)")
        #expect(run.stderr == "sample-exchange-code: \(Self.libsslError(caFile: nil, certificate: certificate, key: key))\n", "\(run.stderr)")
    }
}
