import Foundation
import JOSE
import Testing

@testable import OIDC

/// Form members of a request body.
func formFields(_ request: TransportRequest) -> [String: String] {
    var fields: [String: String] = [:]
    for pair in request.bodyText.split(separator: "&") {
        let parts = pair.split(separator: "=", maxSplits: 1).map(String.init)
        let value = parts.count > 1 ? parts[1].replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? "" : ""
        fields[parts[0].removingPercentEncoding ?? parts[0]] = value
    }
    return fields
}

@Suite("private_key_jwt with ES256, PS256 and EdDSA; issuer or endpoint audience")
struct ClientAssertionTests {
    static let issuer = "https://as.example/realm"
    static let tokenEndpoint = URL(string: "https://as.example/realm/token")!
    static let now = Date(timeIntervalSince1970: 1_800_000_000)

    static let cases: [(spec: JWK.GenerationSpec, algorithm: JWSAlgorithm)] = [(.ec(.p256), .es256), (.rsa(bits: 2048), .ps256), (.ed25519, .eddsa)]

    @Test(
        "the assertion is signed with the algorithm, iss = sub = client_id, aud = issuer by default, unique jti, exp 60 s after iat",
        arguments: cases.map(\.algorithm))
    func assertion(_ algorithm: JWSAlgorithm) async throws {
        let spec = try #require(Self.cases.first { $0.algorithm == algorithm }).spec
        let key = try JWK.generate(spec)
        let transport = CannedTransport(status: 200, body: #"{"access_token":"AT","token_type":"Bearer"}"#)
        let client = try TokenClient(
            tokenEndpoint: Self.tokenEndpoint, issuer: Self.issuer,
            authentication: .privateKeyJWT(clientID: "app", key: key, algorithm: algorithm), transport: transport,
            clock: { Self.now })
        _ = try await client.requestTokens([("grant_type", "client_credentials")], rule: .strict)
        _ = try await client.requestTokens([("grant_type", "client_credentials")], rule: .strict)
        var jtis = Set<String>()
        for request in transport.requests {
            let form = formFields(request)
            #expect(form["client_assertion_type"] == "urn:ietf:params:oauth:client-assertion-type:jwt-bearer")
            #expect(form["client_id"] == "app")
            let assertion = try #require(form["client_assertion"])
            let jws = try CompactJWS(assertion)
            #expect(jws.header.algorithmName == algorithm.rawValue)
            try jws.verify(with: key.publicKey)
            let claims = try decodeJWT(assertion).claims
            #expect(claims["iss"] == "app" && claims["sub"] == "app")
            #expect(claims["aud"]?.stringValue == Self.issuer)
            #expect(claims["iat"] == .integer(1_799_999_999))  // one second behind the clock (AssertionTimes)
            #expect(claims["exp"] == .integer(1_800_000_059))
            jtis.insert(try #require(claims["jti"]?.stringValue))
        }
        #expect(jtis.count == 2)
    }

    @Test("endpointURL audience: aud is the URL of the endpoint called")
    func endpointAudience() async throws {
        let key = try JWK.generate(.ec(.p256))
        let transport = CannedTransport(status: 201, body: #"{"request_uri":"urn:ietf:params:oauth:request_uri:abc","expires_in":60}"#)
        let client = try TokenClient(
            tokenEndpoint: Self.tokenEndpoint, issuer: Self.issuer,
            authentication: .privateKeyJWT(clientID: "app", key: key, algorithm: .es256), transport: transport,
            assertionAudience: .endpointURL)
        let par = URL(string: "https://as.example/realm/par")!
        _ = try await client.pushAuthorizationRequest([("response_type", "code")], endpoint: par)
        let request = try #require(transport.requests.first)
        let claims = try decodeJWT(try #require(formFields(request)["client_assertion"])).claims
        #expect(claims["aud"]?.stringValue == par.absoluteString)
    }

    @Test("a fresh assertion on the DPoP nonce retry")
    func freshOnRetry() async throws {
        let transport = CannedTransport { request in
            if try decodeJWT(request.headers["DPoP"] ?? "").claims["nonce"] != nil {
                return TransportResponse(status: 200, body: Array(#"{"access_token":"AT","token_type":"DPoP"}"#.utf8))
            }
            return TransportResponse(status: 400, headers: ["DPoP-Nonce": "n1"], body: Array(#"{"error":"use_dpop_nonce"}"#.utf8))
        }
        let client = try TokenClient(
            tokenEndpoint: Self.tokenEndpoint, issuer: Self.issuer,
            authentication: .privateKeyJWT(clientID: "app", key: JWK.generate(.ed25519), algorithm: .eddsa),
            transport: transport, dpop: DPoPBinding(key: DPoPKey.generate()))
        let tokens = try await client.requestTokens([("grant_type", "client_credentials")], rule: .strict)
        #expect(tokens.tokenType == "DPoP")
        let jtis = try transport.requests.map { try decodeJWT(formFields($0)["client_assertion"] ?? "").claims["jti"] }
        #expect(jtis.count == 2 && jtis[0] != jtis[1])
    }

    @Test("token_type: DPoP only when a proof was sent, Bearer only when none was")
    func tokenTypeRule() throws {
        #expect(throws: Never.self) { try TokenClient.checkTokenType(TokenResponse(accessToken: "a", tokenType: "dpop"), dpopUsed: true) }
        #expect(throws: Never.self) { try TokenClient.checkTokenType(TokenResponse(accessToken: "a", tokenType: "BEARER"), dpopUsed: false) }
        for (type, used) in [("DPoP", false), ("Bearer", true), ("mac", false), ("N_A", true)] {
            #expect(throws: OIDCError.self) { try TokenClient.checkTokenType(TokenResponse(accessToken: "a", tokenType: type), dpopUsed: used) }
        }
        // An unknown type carries the client's one code constant.
        let error = #expect(throws: OIDCError.self) { try TokenClient.checkTokenType(TokenResponse(accessToken: "a", tokenType: "mac"), dpopUsed: false) }
        #expect(error?.code == .unsupportedTokenType)
    }

    @Test("description and dump of a back-channel client show no secret, private key or nonce")
    func redaction() throws {
        let key = try JWK.generate(.ec(.p256))
        let dpop = DPoPBinding(key: try DPoPKey.generate())
        dpop.nonces.record("secret-nonce-value", for: Self.tokenEndpoint, role: .authorizationServer)
        let secrets = [
            try #require(try key.privateJWK()["d"]?.stringValue), try #require(try dpop.key.privateKey.privateJWK()["d"]?.stringValue),
            "s3cret-client-secret", "secret-nonce-value",
        ]
        for authentication in [
            ClientAuthentication.privateKeyJWT(clientID: "app", key: key, algorithm: .es256),
            .clientSecretPost(clientID: "app", secret: "s3cret-client-secret"),
        ] {
            let client = try TokenClient(
                tokenEndpoint: Self.tokenEndpoint, issuer: Self.issuer, authentication: authentication,
                transport: CannedTransport(status: 200, body: "{}"), dpop: dpop)
            var dumped = ""
            dump(client, to: &dumped)
            for text in [client.description, String(reflecting: client), dumped] {
                for secret in secrets { #expect(!text.contains(secret)) }
            }
        }
    }

    @Test("a non-https issuer or endpoint is refused before anything is sent")
    func insecure() async throws {
        let transport = CannedTransport(status: 200, body: "{}")
        #expect(throws: OIDCError.self) {
            _ = try TokenClient(
                tokenEndpoint: Self.tokenEndpoint, issuer: "http://as.example", authentication: .none(clientID: "a"),
                transport: transport)
        }
        let client = try TokenClient(
            tokenEndpoint: URL(string: "http://as.example/token")!, issuer: "http://127.0.0.1:9461",
            authentication: .none(clientID: "a"), transport: transport)
        await #expect(throws: OIDCError.self) { _ = try await client.requestTokens([], rule: .strict) }
        #expect(transport.requests.isEmpty)
    }
}
