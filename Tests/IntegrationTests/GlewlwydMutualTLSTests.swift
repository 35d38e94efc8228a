import Foundation
import JOSE
import OIDC
import OIDCResourceServer
import OIDCSession
import OIDCTLSTransport
import TestProcesses
import Testing

/// The second glewlwyd of `Tests/providers.sh`: served over TLS with client-certificate verification
/// (`GLEWLWYD_TLS=1 Tests/Glewlwyd/start.sh`), its names prefixed `GLEWLWYD_TLS_`.
enum GlewlwydTLS {
    static let environment = ProcessInfo.processInfo.environment
    static let issuer = environment["GLEWLWYD_TLS_ISSUER"]
    static var isRunning: Bool { issuer != nil }

    static func value(_ name: String) throws -> String { try #require(environment["GLEWLWYD_TLS_\(name)"], "GLEWLWYD_TLS_\(name) is not set") }

    /// The test CA only; with `certificate` (`MTLS_CLIENT` or `MTLS_OTHER`) presenting that client certificate.
    static func transport(_ certificate: String? = nil) throws -> LibSSLTransport {
        try LibSSLTransport(
            clientIdentity: try certificate.map {
                LibSSLTransport.ClientIdentity(certificateFile: try value("\($0)_CERT"), privateKeyFile: try value("\($0)_KEY"))
            }, serverTrust: .caFile(try value("CA_FILE")))
    }

    static var resource: URL { get throws { try #require(URL(string: try value("RESOURCE"))) } }

    /// A validator for the resource server, the issuer's keys fetched over TLS trusting the test CA.
    static func validator(audience: String) async throws -> AccessTokenValidator {
        let transport = try transport()
        return try await AccessTokenValidator.discover(
            issuer: try #require(issuer), audience: audience, discovery: Discovery(transport: transport),
            keyCaches: JWKSetCacheRegistry(transport: transport))
    }

    /// alice's login at the authorization URL (login.py, trusting the test CA): the redirect URL.
    static func login(_ url: URL) async throws -> URL {
        var environment = ProcessInfo.processInfo.environment
        environment["SSL_CERT_FILE"] = try value("CA_FILE")
        let child = try await ChildProcess.run(
            URL(fileURLWithPath: "/usr/bin/env"),
            [
                "python3", Provider.repository.appendingPathComponent("Tests/Glewlwyd/login.py").path,
                "--authorize-url", url.absoluteString,
            ], environment: environment)
        let line = child.output.trimmingCharacters(in: .whitespacesAndNewlines)
        return try #require(URL(string: line), "login.py printed no redirect URL (status \(child.status))")
    }
}

@Suite("glewlwyd over TLS: tls_client_auth and certificate-bound access tokens (RFC 8705)", .enabled(if: GlewlwydTLS.isRunning), .serialized)
struct GlewlwydMutualTLSTests {
    func expectCode(_ code: OIDCError.Code, _ body: () async throws -> Void) async {
        do {
            try await body()
            Issue.record("expected \(code), got success")
        } catch let error as OIDCError {
            #expect(error.code == code, "\(error)")
        } catch {
            Issue.record("expected \(code), got \(error)")
        }
    }

    @Test("tls_client_auth at mtls_endpoint_aliases.token_endpoint: a certificate-bound token, accepted with that certificate only")
    func clientCredentials() async throws {
        let issuer = try #require(GlewlwydTLS.issuer)
        let transport = try GlewlwydTLS.transport("MTLS_CLIENT")
        let clientID = try GlewlwydTLS.value("MTLS_CLIENT_ID")
        let client = try await OIDCClient.discover(issuer: issuer, authentication: .tlsClientAuth(clientID: clientID), transport: transport)
        #expect(client.tokenClient.tokenEndpoint.path.hasSuffix("/mtls/token"), "\(client.tokenClient.tokenEndpoint)")
        let resource = try GlewlwydTLS.resource
        let tokens = try await client.tokenClient.clientCredentials(scope: "api.read", resources: [resource])

        let certificate = ClientCertificate.der(try #require(transport.clientCertificateDER))
        let validator = try await GlewlwydTLS.validator(audience: resource.absoluteString)
        let headers: HeaderFields = ["Authorization": "Bearer " + tokens.accessToken]
        let accepted = try await validator.validate(method: "GET", url: resource, headers: headers, clientCertificate: certificate)
        #expect(accepted.token.confirmation?.certificateThumbprint == certificate.thumbprint)
        #expect(accepted.token.clientID == clientID)
        await expectCode(.certificateBoundToken) {
            _ = try await validator.validate(method: "GET", url: resource, headers: headers, clientCertificate: .notPresented)
        }
        let other = ClientCertificate.der(try #require(try GlewlwydTLS.transport("MTLS_OTHER").clientCertificateDER))
        await expectCode(.certificateBoundToken) {
            _ = try await validator.validate(method: "GET", url: resource, headers: headers, clientCertificate: other)
        }
    }

    /// RFC 8705 §3.2 on the introspection path: glewlwyd's answer at `mtls_endpoint_aliases.introspection_endpoint`
    /// carries `cnf.x5t#S256`; `TokenIntrospector` enforces it (it was ignored: the token passed as plain Bearer).
    @Test("introspection: the answer's cnf.x5t#S256 lets the token pass with that certificate only; the Bearer-only call refuses it")
    func introspectedCertificateBinding() async throws {
        let issuer = try #require(GlewlwydTLS.issuer)
        let transport = try GlewlwydTLS.transport("MTLS_CLIENT")
        let clientID = try GlewlwydTLS.value("MTLS_CLIENT_ID")
        let client = try await OIDCClient.discover(issuer: issuer, authentication: .tlsClientAuth(clientID: clientID), transport: transport)
        let resource = try GlewlwydTLS.resource
        let tokens = try await client.tokenClient.clientCredentials(scope: "api.read", resources: [resource])
        let endpoint = try #require(client.metadata.introspectionEndpoint)
        #expect(endpoint.path.hasSuffix("/mtls/introspect"), "\(endpoint)")
        let introspector = try TokenIntrospector(
            endpoint: endpoint, issuer: issuer, authentication: .tlsClientAuth(clientID: clientID),
            transport: transport, audience: .contains(resource.absoluteString))
        let certificate = ClientCertificate.der(try #require(transport.clientCertificateDER))
        let answer = try #require(try await introspector.introspect(tokens.accessToken, hint: "access_token").activeToken)
        #expect(try answer.confirmation?.certificateThumbprint == certificate.thumbprint, "\(answer.members)")

        let headers: HeaderFields = ["Authorization": "Bearer " + tokens.accessToken]
        let accepted = try await introspector.validate(
            method: "GET", url: resource, headers: headers, requiredScopes: ["api.read"],
            clientCertificate: certificate)
        #expect(accepted.scheme == .bearer && accepted.introspection.scopes.contains("api.read"))
        await expectCode(.certificateBoundToken) { _ = try await introspector.validate(tokens.accessToken) }
        await expectCode(.certificateBoundToken) {
            _ = try await introspector.validate(method: "GET", url: resource, headers: headers, clientCertificate: .notPresented)
        }
        let other = ClientCertificate.der(try #require(try GlewlwydTLS.transport("MTLS_OTHER").clientCertificateDER))
        await expectCode(.certificateBoundToken) {
            _ = try await introspector.validate(method: "GET", url: resource, headers: headers, clientCertificate: other)
        }
    }

    @Test("a login with tls_client_auth, then the session sends the certificate-bound token over the same mTLS transport")
    func sessionOverMutualTLS() async throws {
        let issuer = try #require(GlewlwydTLS.issuer)
        let clientID = try GlewlwydTLS.value("MTLS_CLIENT_ID")
        let redirectURI = try #require(URL(string: try GlewlwydTLS.value("REDIRECT_URI")))
        let client = try await OIDCClient.discover(
            issuer: issuer, authentication: .tlsClientAuth(clientID: clientID),
            transport: try GlewlwydTLS.transport("MTLS_CLIENT"))
        let pending = try await client.startLogin(LoginRequest(redirectURI: redirectURI, scopes: ["openid", "api.read"]))
        let login = try await client.finishLogin(pending, callback: .url(try GlewlwydTLS.login(pending.url)))
        let userinfo = try #require(client.metadata.userinfoEndpoint)
        let origin = try #require(URL(string: "\(userinfo.scheme ?? "https")://\(userinfo.host ?? ""):\(userinfo.port ?? 443)"))
        let session = try await client.session(tokens: login.tokens, configuration: .init(allowedOrigins: [origin]))
        let answer = try await session.send(TransportRequest(url: userinfo))
        #expect(answer.status == 200, "userinfo answered \(answer.status)")
        #expect(try JSONParser.parseObject(answer.body, what: "userinfo")["sub"]?.stringValue == login.idToken.subject)
        // glewlwyd 2.7.5's UserInfo does not check cnf.x5t#S256 (it answers the bound token without the certificate
        // too: Tests/Glewlwyd/README.md), so the refusal without the certificate is shown at the resource server above.
    }

    @Test("tls_client_auth without a client certificate, or with another client's, is refused by the provider")
    func refusedWithoutTheCertificate() async throws {
        let issuer = try #require(GlewlwydTLS.issuer)
        let clientID = try GlewlwydTLS.value("MTLS_CLIENT_ID")
        for transport in [try GlewlwydTLS.transport(), try GlewlwydTLS.transport("MTLS_OTHER")] {
            let client = try await OIDCClient.discover(issuer: issuer, authentication: .tlsClientAuth(clientID: clientID), transport: transport)
            await #expect(throws: OIDCError.self) { _ = try await client.tokenClient.clientCredentials(scope: "api.read") }
        }
    }

    @Test("the server's certificate is verified: without the test CA the handshake fails (typed, no secret)")
    func serverVerified() async throws {
        let issuer = try #require(GlewlwydTLS.issuer)
        let transport = try LibSSLTransport(
            clientIdentity: LibSSLTransport.ClientIdentity(
                certificateFile: try GlewlwydTLS.value("MTLS_CLIENT_CERT"), privateKeyFile: try GlewlwydTLS.value("MTLS_CLIENT_KEY")),
            serverTrust: .caFile(try GlewlwydTLS.value("MTLS_OTHER_CERT")))  // a certificate that is not the CA
        let error = await #expect(throws: TransportError.self) {
            _ = try await transport.send(TransportRequest(url: try #require(URL(string: issuer + "/.well-known/openid-configuration"))))
        }
        #expect("\(String(describing: error))".contains("certificate"))
    }

    @Test("samples: sample-exchange-code --client-auth tls_client_auth, then sample-resource-server with and without --client-cert")
    func samples() async throws {
        let issuer = try #require(GlewlwydTLS.issuer)
        let clientID = try GlewlwydTLS.value("MTLS_CLIENT_ID")
        let redirectURI = try #require(URL(string: try GlewlwydTLS.value("REDIRECT_URI")))
        let metadata = try await Discovery(transport: try GlewlwydTLS.transport()).metadata(for: issuer)
        var request = try OAuthRequest(clientID: clientID, redirectURI: redirectURI, scopes: ["openid", "api.read"])
        request.nonce = try .random()
        let pending = try request.pendingAuthorization(
            at: try #require(metadata.authorizationEndpoint), issuer: metadata.issuer,
            issuerParameterSupported: true)
        let code = try await #require(try pending.parseRedirect(try GlewlwydTLS.login(pending.authorizationURL)).code)
        let tokenFile = FileManager.default.temporaryDirectory.appendingPathComponent("mtls-tokens-\(UUID().uuidString).json").path
        defer { try? FileManager.default.removeItem(atPath: tokenFile) }
        let caFile = try GlewlwydTLS.value("CA_FILE"), certificate = try GlewlwydTLS.value("MTLS_CLIENT_CERT")
        let exchange = try await GlewlwydSerial.GlewlwydSampleTests.run(
            "sample-exchange-code",
            [
                "--issuer", issuer, "--client-id", clientID, "--client-auth", "tls_client_auth", "--client-cert", certificate,
                "--client-key", try GlewlwydTLS.value("MTLS_CLIENT_KEY"), "--ca-file", caFile, "--redirect-uri", redirectURI.absoluteString,
                "--code", code, "--code-verifier", try #require(pending.codeVerifier?.value), "--nonce", try #require(pending.nonce?.value),
                "--save-tokens", tokenFile,
            ])
        #expect(exchange.status == 0, "\(exchange.stderr)")
        #expect(exchange.json?["id_token_claims"]?.objectValue?["sub"] != nil)
        let accessToken = try #require(try await FileTokenStore(path: tokenFile).load()?.accessToken)
        // The token's audience as glewlwyd sets it without a resource indicator (the scope list).
        let payload = try JSONParser.parseObject(try Base64URL.decode(String(accessToken.split(separator: ".")[1])), what: "payload")
        let audience = try #require(payload["aud"]?.stringValue ?? payload["aud"]?.arrayValue?.first?.stringValue)
        let arguments = ["--issuer", issuer, "--audience", audience, "--ca-file", caFile]
        let accepted = try await GlewlwydSerial.GlewlwydSampleTests.run(
            "sample-resource-server", arguments + ["--client-cert", certificate], stdin: accessToken)
        #expect(accepted.status == 0, "\(accepted.stderr)")
        let thumbprint = try ClientCertificate(pem: String(contentsOfFile: certificate, encoding: .utf8)).thumbprint
        #expect(accepted.json?["cnf"] == .object(["x5t#S256": .string(try #require(thumbprint))]))
        let without = try await GlewlwydSerial.GlewlwydSampleTests.run("sample-resource-server", arguments, stdin: accessToken)
        #expect(without.status == 1 && without.stderr.contains("certificate_bound"), "\(without.stderr)")
        let other = try await GlewlwydSerial.GlewlwydSampleTests.run(
            "sample-resource-server", arguments + ["--client-cert", try GlewlwydTLS.value("MTLS_OTHER_CERT")],
            stdin: accessToken)
        #expect(other.status == 1 && other.json?["active"] == .bool(false), "\(other.stderr)")
        // Usage: tls_client_auth takes no secret, and needs the certificate and key.
        let usage = try await GlewlwydSerial.GlewlwydSampleTests.run(
            "sample-exchange-code",
            [
                "--issuer", issuer, "--client-id", clientID, "--client-auth", "tls_client_auth",
                "--redirect-uri", "https://x", "--code", "c", "--code-verifier", "v",
            ])
        #expect(usage.status == 2)
    }
}
