import Foundation
import JOSE
import OIDC
import TestProcesses
import Testing

/// `JWTVCIssuerMetadata` against Tests/Support/credential_host.py: keys by value and by reference, issuer equality,
/// the exactly-one-of rule, and the fetch policy for both fetches.
@Suite(
    "JWT VC issuer metadata (scripted host)",
    .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/python3") || ProcessInfo.processInfo.environment["CI"] == "true"))
struct JWTVCIssuerMetadataTests {
    struct Host {
        let server: FaultServer
        let transport: any HTTPTransport

        static func start() async throws -> Host {
            Host(server: try await FaultServer.start(script: "credential_host.py"), transport: try LibSSLTransport())
        }

        var policy: RemoteFetchPolicy {
            get throws { RemoteFetchPolicy(allowedHosts: [try .init(host: "127.0.0.1", port: try #require(server.url("/").port))]) }
        }

        func put(_ path: String, _ document: JSONObject) async throws {
            let response = try await transport.send(
                TransportRequest(
                    method: .put, url: server.url(path), headers: ["Content-Type": "application/json"],
                    body: .bytes(Array(document.jsonString().utf8))))
            #expect(response.status == 204)
        }
    }

    static func publicSet(_ keys: [JWK]) -> JSONValue {
        .object(["keys": .array(keys.map { .object($0.publicJWK) })])
    }

    @Test("keys by value (jwks) and by reference (jwks_uri), from /.well-known/jwt-vc-issuer<path>")
    func keys() async throws {
        let host = try await Host.start()
        defer { host.server.stop() }
        let signing = try JWK.generate(.ec(.p256))
        let issuerA = host.server.base + "/tenants/a"
        #expect(try JWTVCIssuerMetadata.metadataURL(forIssuer: issuerA).path == "/.well-known/jwt-vc-issuer/tenants/a")
        try await host.put("/.well-known/jwt-vc-issuer/tenants/a", ["issuer": .string(issuerA), "jwks": Self.publicSet([signing])])
        let byValue = try await JWTVCIssuerMetadata.keys(forIssuer: issuerA, transport: host.transport, fetchPolicy: try host.policy)
        #expect(byValue.keys.map { $0.thumbprint() } == [signing.thumbprint()])

        let issuerB = host.server.base + "/tenants/b"
        try await host.put("/.well-known/jwt-vc-issuer/tenants/b", ["issuer": .string(issuerB), "jwks_uri": .string(host.server.base + "/b/jwks")])
        try await host.put("/b/jwks", ["keys": Self.publicSet([signing]).objectValue!["keys"]!])
        let byReference = try await JWTVCIssuerMetadata.keys(forIssuer: issuerB, transport: host.transport, fetchPolicy: try host.policy)
        #expect(byReference.keys.map { $0.thumbprint() } == [signing.thumbprint()])
    }

    @Test("another issuer, both or neither of jwks and jwks_uri, a jwks that is no set: vc_issuer_metadata_invalid")
    func refusals() async throws {
        let host = try await Host.start()
        defer { host.server.stop() }
        let key = try JWK.generate(.ec(.p256))
        let base = host.server.base
        let documents: [(String, JSONObject)] = [
            ("other", ["issuer": "https://someone.example", "jwks": Self.publicSet([key])]),
            ("both", ["issuer": .string(base + "/both"), "jwks": Self.publicSet([key]), "jwks_uri": .string(base + "/x")]),
            ("neither", ["issuer": .string(base + "/neither")]),
            ("notaset", ["issuer": .string(base + "/notaset"), "jwks": "keys"]),
            ("noissuer", ["jwks": Self.publicSet([key])]),
        ]
        for (name, document) in documents {
            try await host.put("/.well-known/jwt-vc-issuer/" + name, document)
            do {
                _ = try await JWTVCIssuerMetadata.keys(forIssuer: base + "/" + name, transport: host.transport, fetchPolicy: try host.policy)
                Issue.record("\(name): accepted")
            } catch let error as OIDCError {
                #expect(error.code == .vcIssuerMetadataInvalid, "\(name): \(error)")
            }
        }
    }

    @Test("the default fetch policy refuses a loopback issuer before anything is sent")
    func fetchPolicy() async throws {
        let host = try await Host.start()
        defer { host.server.stop() }
        do {
            _ = try await JWTVCIssuerMetadata.keys(forIssuer: host.server.base + "/a", transport: host.transport)
            Issue.record("a loopback issuer passed the default fetch policy")
        } catch let error as OIDCError {
            #expect(error.code == .vcIssuerHostRefused)
        }
        #expect(throws: OIDCError.self) { try JWTVCIssuerMetadata.metadataURL(forIssuer: "http://issuer.example/a") }
    }
}
