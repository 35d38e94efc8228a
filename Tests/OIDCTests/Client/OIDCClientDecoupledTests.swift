import Foundation
import JOSE
import Testing

@testable import OIDC

/// CIBA and the device grant through `OIDCClient`: the endpoints come from the metadata, a grant's
/// token type is checked and its ID Token validated before the caller sees it.
@Suite("OIDCClient: CIBA and the device grant")
struct OIDCClientDecoupledTests {
    typealias C = OIDCClientTests
    static let backchannel = "https://op.example.com/bc-authorize"
    static let device = "https://op.example.com/device"
    static let noWait = PollingSleeper { _ in }

    static func client(advertised: Bool = true) throws -> (OIDCClient, ScriptedTransport) {
        let transport = ScriptedTransport()
        transport.json(F.jwksURL.absoluteString, F.jwks([try F.publicJWK("rsa2048", kid: "k1")]))
        var metadata = C.metadata()
        if advertised {
            metadata.backchannelAuthenticationEndpoint = URL(string: backchannel)
            metadata.deviceAuthorizationEndpoint = URL(string: device)
        }
        let client = try OIDCClient(
            metadata: metadata, authentication: .clientSecretBasic(clientID: F.clientID, secret: "s3cret-s3cret-s3cret-s3cret-s3cret!"),
            transport: transport, configuration: OIDCClient.Configuration(clock: TestClock().now))
        return (client, transport)
    }

    /// The token endpoint: one `authorization_pending`, then `answer`.
    static func grant(_ transport: ScriptedTransport, _ answer: JSONObject, status: Int = 200) {
        let pending = TransportResponse(status: 400, headers: ["Content-Type": "application/json"], body: Array(#"{"error":"authorization_pending"}"#.utf8))
        transport.script(
            C.tokenURL,
            [
                .response(pending),
                .response(
                    TransportResponse(
                        status: status, headers: ["Content-Type": "application/json"],
                        body: Array(answer.jsonString().utf8))),
            ])
    }

    static func tokens(idToken: String?, tokenType: String = "Bearer") -> JSONObject {
        var object: JSONObject = ["access_token": "at-1", "token_type": .string(tokenType), "expires_in": 300]
        if let idToken { object["id_token"] = .string(idToken) }
        return object
    }

    func startCIBA(_ client: OIDCClient, _ transport: ScriptedTransport) async throws -> DecoupledAuthenticationResponse {
        transport.json(Self.backchannel, #"{"auth_req_id":"req-1","expires_in":120,"interval":1}"#)
        return try await client.startBackchannelLogin(DecoupledAuthenticationRequest(scope: "openid", hint: .loginHint("alice")))
    }

    @Test("CIBA: pending, then approved: tokens and the validated ID Token")
    func cibaLoggedIn() async throws {
        let (client, transport) = try Self.client()
        let started = try await startCIBA(client, transport)
        Self.grant(transport, Self.tokens(idToken: try C.idToken()))
        guard case .loggedIn(let tokens, let idToken?) = try await client.finishBackchannelLogin(started, sleeper: Self.noWait) else {
            Issue.record("not logged in"); return
        }
        #expect(tokens.accessToken == "at-1" && idToken.subject == F.claims()["sub"]?.stringValue)
        #expect(transport.calls(C.tokenURL) == 2)
    }

    @Test(
        "CIBA: an ID Token for another audience, forged, missing, or a token type the client does not use is a typed error",
        arguments: ["audience_mismatch", "invalid_signature", "missing_id_token", "unsupported_token_type"])
    func cibaRefused(_ code: String) async throws {
        let (client, transport) = try Self.client()
        let started = try await startCIBA(client, transport)
        switch code {
        case "audience_mismatch": Self.grant(transport, Self.tokens(idToken: try C.idToken([("aud", "other-client")])))
        case "invalid_signature": Self.grant(transport, Self.tokens(idToken: F.tamper(try C.idToken())))
        case "missing_id_token": Self.grant(transport, Self.tokens(idToken: nil))
        default: Self.grant(transport, Self.tokens(idToken: try C.idToken(), tokenType: "MAC"))
        }
        let error = await #expect(throws: OIDCError.self) { _ = try await client.finishBackchannelLogin(started, sleeper: Self.noWait) }
        #expect(error?.code.rawValue == code, "\(String(describing: error))")
    }

    @Test("CIBA: access_denied and expired_token are outcomes, not errors")
    func cibaDenied() async throws {
        let (client, transport) = try Self.client()
        let started = try await startCIBA(client, transport)
        Self.grant(transport, ["error": "access_denied"], status: 400)
        guard case .denied(let error) = try await client.finishBackchannelLogin(started, sleeper: Self.noWait) else {
            Issue.record("not denied"); return
        }
        #expect(error.error == "access_denied")
        Self.grant(transport, ["error": "expired_token"], status: 400)
        guard case .expired = try await client.finishBackchannelLogin(started, sleeper: Self.noWait) else { Issue.record("not expired"); return }
    }

    @Test("a provider without the endpoints: endpoint_not_advertised, nothing sent")
    func notAdvertised() async throws {
        let (client, transport) = try Self.client(advertised: false)
        let before = transport.totalCalls
        let ciba = await #expect(throws: OIDCError.self) {
            _ = try await client.startBackchannelLogin(DecoupledAuthenticationRequest(scope: "openid", hint: .loginHint("alice")))
        }
        #expect(ciba?.code == .endpointNotAdvertised)
        let device = await #expect(throws: OIDCError.self) { _ = try await client.startDeviceLogin() }
        #expect(device?.code == .endpointNotAdvertised)
        #expect(transport.totalCalls == before)
    }

    @Test("device grant: without an ID Token the tokens alone; with one, it is validated")
    func deviceLogin() async throws {
        let (client, transport) = try Self.client()
        transport.json(
            Self.device,
            #"{"device_code":"dc","user_code":"ABCD-EFGH","verification_uri":"https://op.example.com/device/verify","expires_in":300,"interval":1}"#)
        let started = try await client.startDeviceLogin(scopes: ["openid", "profile"])
        #expect(started.userCode == "ABCD-EFGH")
        Self.grant(transport, Self.tokens(idToken: nil))
        guard case .loggedIn(let tokens, nil) = try await client.finishDeviceLogin(started, sleeper: Self.noWait) else {
            Issue.record("not logged in without an ID Token"); return
        }
        #expect(tokens.accessToken == "at-1")
        Self.grant(transport, Self.tokens(idToken: try C.idToken([("iss", "https://evil.example")])))
        let error = await #expect(throws: OIDCError.self) { _ = try await client.finishDeviceLogin(started, sleeper: Self.noWait) }
        #expect(error?.code == .issuerMismatch)
    }
}
