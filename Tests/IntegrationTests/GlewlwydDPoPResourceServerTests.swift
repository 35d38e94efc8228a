import Foundation
import JOSE
import OIDC
import OIDCNetworking
import Testing

extension GlewlwydSerial {
    /// RFC 9449 §7 at the receiving side: a DPoP-bound access token from glewlwyd (client credentials
    /// through the FAPI client, private_key_jwt + DPoP, `resource` = the API) presented to
    /// `sample-bearer-server`: accepted with a proof of the bound key; refused as Bearer, with a
    /// replayed proof, with an attacker's proof, with a wrong htm/htu/ath and without a proof; and
    /// with `--dpop-nonce`, the library's client answers the server's nonce challenge.
    @Suite("glewlwyd: DPoP-bound tokens at sample-bearer-server", .enabled(if: Glewlwyd.isRunning, "GLEWLWYD_ISSUER is not set"), .serialized)
    struct GlewlwydDPoPResourceServerTests {
        /// A DPoP-bound access token for the API, bound to `binding`'s key.
        static func boundToken(_ binding: DPoPBinding) async throws -> String {
            let metadata = try await Glewlwyd.metadata()
            let key = try JWK(pem: String(contentsOfFile: try Glewlwyd.value("GLEWLWYD_PKJWT_KEY_FILE"), encoding: .utf8))
            let client = try TokenClient(
                tokenEndpoint: try #require(metadata.tokenEndpoint), issuer: metadata.issuer,
                authentication: .privateKeyJWT(clientID: try Glewlwyd.value("GLEWLWYD_PKJWT_CLIENT_ID"), key: key, algorithm: .es256),
                transport: Glewlwyd.transport, assertionAudience: .endpointURL, dpop: binding)
            let tokens = try await client.requestTokens(
                [
                    ("grant_type", "client_credentials"), ("scope", "api.read"),
                    ("resource", try Glewlwyd.resource.absoluteString),
                ],
                rule: .strict)
            #expect(tokens.tokenType.lowercased() == "dpop")
            let jws = try CompactJWS(tokens.accessToken)
            let claims = try JSONParser.parseObject(jws.payload, what: "access token")
            #expect(claims["cnf"]?.objectValue?["jkt"]?.stringValue == binding.key.thumbprint, "\(claims)")
            return tokens.accessToken
        }

        static func send(_ url: URL, method: String = "GET", headers: HeaderFields) async throws -> TransportResponse {
            try await Glewlwyd.transport.send(TransportRequest(method: .init(rawValue: method), url: url, headers: headers))
        }

        @Test("accepted with a proof of the bound key; refused as Bearer, replayed, with an attacker's proof, wrong htm/htu/ath, no proof")
        func boundTokenAtSample() async throws {
            let binding = DPoPBinding(key: try DPoPKey.generate())
            let token = try await Self.boundToken(binding)
            let port = try RunningSample.freePort()
            let cases = 9
            let server = try await RunningSample(
                "sample-bearer-server",
                [
                    "--issuer", try #require(Glewlwyd.issuer), "--audience", try Glewlwyd.resource.absoluteString,
                    "--port", "\(port)", "--require-scope", "api.read", "--requests", "\(cases)",
                ])
            defer { server.stop() }
            let url = try #require(URL(string: "http://127.0.0.1:\(port)/api/items?page=1"))
            func dpop(_ proof: String?) -> HeaderFields {
                var headers: HeaderFields = ["Authorization": "DPoP " + token]
                if let proof { headers.add("DPoP", proof) }
                return headers
            }
            func proof(_ key: DPoPKey = binding.key, method: String = "GET", url: URL = url, token: String = token) throws -> String {
                try key.proof(method: method, url: url, accessToken: token, now: Date())
            }
            func expectRefused(_ response: TransportResponse, _ challenge: String, _ what: String) {
                #expect(response.status == 401, "\(what): \(response.status)")
                #expect(
                    response.headers.values(for: "WWW-Authenticate").first?.hasPrefix(challenge) == true,
                    "\(what): \(response.headers.values(for: "WWW-Authenticate"))")
            }

            // 1. The bound key's proof: 200 with the token's facts.
            let good = try proof()
            let accepted = try await Self.send(url, headers: dpop(good))
            #expect(accepted.status == 200, "\(accepted.status) \(accepted.headers.values(for: "WWW-Authenticate"))")
            let body = try JSONParser.parseObject(accepted.body, what: "sample answer")
            #expect(body.map(\.name) == ["sub", "client_id", "scope"])
            #expect(body["client_id"]?.stringValue == (try Glewlwyd.value("GLEWLWYD_PKJWT_CLIENT_ID")) && body["scope"] == .array(["api.read"]))
            // 2. The same proof again: a replay.
            expectRefused(try await Self.send(url, headers: dpop(good)), "DPoP error=\"invalid_dpop_proof\"", "replayed proof")
            // 3. The bound token as Bearer.
            let bearer = try await Self.send(url, headers: ["Authorization": "Bearer " + token])
            expectRefused(bearer, "Bearer error=\"invalid_token\"", "as Bearer")
            // 4. An attacker's proof: its own key, the right ath, htm and htu.
            expectRefused(try await Self.send(url, headers: dpop(try proof(try DPoPKey.generate()))), "DPoP error=\"invalid_dpop_proof\"", "attacker's proof")
            // 5. DPoP without a proof.
            expectRefused(try await Self.send(url, headers: dpop(nil)), "DPoP error=\"invalid_dpop_proof\"", "no proof")
            // 6-8. Wrong htm, htu, ath.
            expectRefused(try await Self.send(url, headers: dpop(try proof(method: "POST"))), "DPoP error=\"invalid_dpop_proof\"", "htm")
            expectRefused(
                try await Self.send(url, headers: dpop(try proof(url: try #require(URL(string: "http://127.0.0.1:\(port)/other"))))),
                "DPoP error=\"invalid_dpop_proof\"", "htu")
            expectRefused(try await Self.send(url, headers: dpop(try proof(token: "another-token"))), "DPoP error=\"invalid_dpop_proof\"", "ath")
            // 9. A fresh proof of the bound key whose htu writes the same URL differently (RFC 3986 §6.2.2): accepted.
            let written = try #require(URL(string: "http://127.0.0.1:\(port)/api/%69tems/../items"))
            let normalized = try await Self.send(url, headers: dpop(try proof(url: written)))
            #expect(normalized.status == 200, "\(normalized.status) \(normalized.headers.values(for: "WWW-Authenticate"))")
        }

        @Test("--dpop-nonce: 401 DPoP use_dpop_nonce with DPoP-Nonce, which the library's client answers with one retry")
        func nonceAtSample() async throws {
            let binding = DPoPBinding(key: try DPoPKey.generate())
            let token = try await Self.boundToken(binding)
            let port = try RunningSample.freePort()
            let server = try await RunningSample(
                "sample-bearer-server",
                [
                    "--issuer", try #require(Glewlwyd.issuer), "--audience", try Glewlwyd.resource.absoluteString,
                    "--port", "\(port)", "--requests", "2", "--dpop-nonce",
                ])
            defer { server.stop() }
            let url = try #require(URL(string: "http://127.0.0.1:\(port)/api"))
            let recording = RecordingTransport(Glewlwyd.transport)
            let response = try await binding.send(role: .resourceServer, accessToken: token, transport: recording) { TransportRequest(url: url) }
            #expect(response.status == 200)
            let exchanges = recording.exchanges
            #expect(exchanges.map(\.status) == [401, 200] && exchanges.first?.nonceChallenge == true && exchanges.last?.sentNonce == true, "\(exchanges)")
            #expect(exchanges.first?.challenge?.hasPrefix("DPoP error=\"use_dpop_nonce\"") == true, "\(exchanges)")
        }
    }
}
