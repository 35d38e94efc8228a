import Foundation
import JOSE
import OIDC
import OIDCNetworking
import OIDCResourceServer
import TestProcesses
import Testing

/// Tests/Support/introspection_server.py on 127.0.0.1: an RFC 7662 endpoint over real HTTP whose answers bind the
/// token (`cnf.jkt`, RFC 9449 §6.2; `cnf.x5t#S256`, RFC 8705 §3.2), enforced by `TokenIntrospector`: the binding
/// was ignored, so a stolen bound token passed as plain Bearer with no proof and no certificate.
@Suite(
    "Scripted introspection endpoint: the answer's cnf is enforced", .serialized,
    .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/python3") || ProcessInfo.processInfo.environment["CI"] == "true"))
struct ScriptedIntrospectionBindingTests {
    static let resource = URL(string: "https://rs.example/api/items")!
    static let certificate: [UInt8] = Array("the client's DER certificate".utf8)

    /// Starts the server, runs `body` with an introspector for it (rs / rs-secret, audience https://rs.example/api)
    /// and a function answering how many introspection requests the server has seen; stops it.
    func withServer(_ body: (TokenIntrospector, @escaping @Sendable () async throws -> Int) async throws -> Void) async throws {
        let server = try await FaultServer.start(script: "introspection_server.py")
        defer { server.stop() }
        let transport = URLSessionTransport()
        let introspector = try TokenIntrospector(
            endpoint: server.url("/introspect"), issuer: server.base,
            authentication: .clientSecretBasic(clientID: "rs", secret: "rs-secret"),
            transport: transport, audience: .contains("https://rs.example/api"))
        let count: @Sendable () async throws -> Int = {
            let answer = try await transport.send(TransportRequest(url: server.url("/count")))
            return Int(String(decoding: answer.body, as: UTF8.self)) ?? -1
        }
        try await body(introspector, count)
    }

    func code(_ body: () async throws -> Void) async -> String? {
        do {
            try await body()
            return nil
        } catch let error as OIDCError {
            return error.code.rawValue
        } catch {
            return "unexpected \(error)"
        }
    }

    @Test("cnf.jkt: refused as Bearer (both calls), accepted with the DPoP scheme and a proof of that key, not another's")
    func jwkBound() async throws {
        try await withServer { introspector, count in
            let key = try DPoPKey.generate()
            let token = "jkt." + key.thumbprint
            let bearer: HeaderFields = ["Authorization": "Bearer " + token]
            #expect(await code { _ = try await introspector.validate(token, requiredScopes: ["api.read"]) } == "dpop_bound_token_as_bearer")
            #expect(await code { _ = try await introspector.validate(method: "GET", url: Self.resource, headers: bearer) } == "dpop_bound_token_as_bearer")

            let proof = try key.proof(method: "GET", url: Self.resource, accessToken: token, now: Date())
            let accepted = try await introspector.validate(
                method: "GET", url: Self.resource,
                headers: ["Authorization": "DPoP " + token, "DPoP": proof], requiredScopes: ["api.read"])
            #expect(accepted.scheme == .dpop && accepted.proof?.thumbprint == key.thumbprint)
            #expect(accepted.introspection.subject == "alice" && accepted.introspection.clientID == "app")
            #expect(try accepted.introspection.confirmation?.jwkThumbprint == key.thumbprint)

            let attacker = try DPoPKey.generate().proof(method: "GET", url: Self.resource, accessToken: token, now: Date())
            #expect(
                await code {
                    _ = try await introspector.validate(method: "GET", url: Self.resource, headers: ["Authorization": "DPoP " + token, "DPoP": attacker])
                } == "dpop_proof_jkt")
            // Without a proof: refused before the endpoint is asked.
            let asked = try await count()
            #expect(
                await code {
                    _ = try await introspector.validate(method: "GET", url: Self.resource, headers: ["Authorization": "DPoP " + token])
                } == "dpop_proof_missing")
            #expect(try await count() == asked)
        }
    }

    @Test("cnf.x5t#S256: accepted only with that client certificate; the Bearer-only call refuses it")
    func certificateBound() async throws {
        try await withServer { introspector, _ in
            let certificate = ClientCertificate.der(Self.certificate)
            let token = "x5t." + (try #require(certificate.thumbprint))
            let bearer: HeaderFields = ["Authorization": "Bearer " + token]
            #expect(await code { _ = try await introspector.validate(token) } == "certificate_bound_token")
            #expect(await code { _ = try await introspector.validate(method: "GET", url: Self.resource, headers: bearer) } == "certificate_bound_token")
            #expect(
                await code {
                    _ = try await introspector.validate(
                        method: "GET", url: Self.resource, headers: bearer,
                        clientCertificate: .der(Array("another certificate".utf8)))
                } == "certificate_bound_token")
            let accepted = try await introspector.validate(
                method: "GET", url: Self.resource, headers: bearer, requiredScopes: ["api.read"],
                clientCertificate: certificate)
            #expect(accepted.scheme == .bearer && accepted.proof == nil)
            #expect(try accepted.introspection.confirmation?.certificateThumbprint == certificate.thumbprint)
        }
    }

    @Test("an unbound token passes as Bearer through both calls; an inactive one is inactive_token")
    func unbound() async throws {
        try await withServer { introspector, _ in
            #expect(try await introspector.validate("unbound", requiredScopes: ["api.read"]).subject == "alice")
            let accepted = try await introspector.validate(method: "GET", url: Self.resource, headers: ["Authorization": "Bearer unbound"])
            #expect(accepted.scheme == .bearer)
            #expect(
                await code { _ = try await introspector.validate(method: "GET", url: Self.resource, headers: ["Authorization": "Bearer revoked"]) }
                    == "inactive_token")
        }
    }
}
