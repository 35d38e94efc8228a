import Foundation
import JOSE
import Testing

@testable import OIDC

/// Issue 13 "Secrets through reflection": `dump`, `Mirror`, `description` and
/// `debugDescription` of every type holding a secret show none of it.
@Suite("Secrets never show through dump or Mirror")
struct ReflectionRedactionTests {
    static let secret = "S3cret-Client-Value-4711"
    static let token = "AT-eyJhbGciOi-the-bearer-token"

    /// Every way a value can be rendered to text, including a recursive `dump` and a walk of its `Mirror`.
    static func renderings(_ value: Any) -> [String] {
        var dumped = ""
        dump(value, to: &dumped, maxDepth: 20)
        var mirrored = ""
        func walk(_ mirror: Mirror, depth: Int) {
            guard depth < 20 else { return }
            for child in mirror.children {
                mirrored += "\(child.label ?? "-")=\(child.value)\n"
                walk(Mirror(reflecting: child.value), depth: depth + 1)
            }
        }
        walk(Mirror(reflecting: value), depth: 0)
        return [dumped, mirrored, String(describing: value), String(reflecting: value)]
    }

    static func expectHidden(_ value: Any, _ secrets: [String], sourceLocation: SourceLocation = #_sourceLocation) {
        for text in renderings(value) {
            for secret in secrets {
                #expect(!text.contains(secret), "\(type(of: value)) shows a secret", sourceLocation: sourceLocation)
            }
        }
    }

    @Test(
        "ClientAuthentication and TokenClient: no client secret",
        arguments: [
            ClientAuthentication.clientSecretBasic(clientID: "app", secret: secret),
            .clientSecretPost(clientID: "app", secret: secret),
            .clientSecretJWT(clientID: "app", secret: secret),
        ])
    func clientAuthentication(_ authentication: ClientAuthentication) throws {
        Self.expectHidden(authentication, [Self.secret])
        let client = try TokenClient(tokenEndpoint: TokenClientTests.endpoint, authentication: authentication, transport: ScriptedTransport())
        Self.expectHidden(client, [Self.secret])
        #expect(Self.renderings(authentication)[0].contains("app"))
    }

    @Test("private_key_jwt: no key material")
    func privateKeyJWT() throws {
        let key = JWK(symmetricKey: Array(Self.secret.utf8))
        let authentication = ClientAuthentication.privateKeyJWT(clientID: "app", key: key, algorithm: .hs256)
        for text in Self.renderings(authentication) {
            // The secret's bytes as dump prints them (decimal, one per line) must not appear.
            #expect(!text.contains("- 83\n"))
            #expect(!text.contains(Self.secret))
        }
    }

    @Test("IDTokenValidator.Configuration: no client secret, but says one is set")
    func validationConfig() {
        let config = IDTokenValidator.Configuration(issuer: IDTokenFixtures.issuer, clientID: "app", clientSecret: Self.secret)
        Self.expectHidden(config, [Self.secret])
        #expect(Self.renderings(config)[0].contains("set (redacted)"))
    }

    @Test("HeaderFields, TransportRequest, TransportResponse: no Authorization value, body or query")
    func http() {
        let headers: HeaderFields = ["Authorization": "Bearer " + Self.token, "Accept": "application/json", "Cookie": "sid=" + Self.secret]
        Self.expectHidden(headers, [Self.token, Self.secret])
        #expect(String(describing: headers).contains("application/json"))
        #expect(headers["Authorization"] == "Bearer " + Self.token)  // the value itself is untouched
        let request = TransportRequest(
            method: "POST", url: URL(string: "https://op.example.com/token?code=\(Self.secret)")!, headers: headers,
            body: .bytes(Array("client_secret=\(Self.secret)&refresh_token=\(Self.token)".utf8)))
        Self.expectHidden(request, [Self.token, Self.secret])
        #expect(Self.renderings(request)[0].contains("op.example.com/token"))
        let response = TransportResponse(
            status: 200, headers: ["Set-Cookie": "sid=" + Self.secret],
            body: Array(#"{"access_token":"\#(Self.token)"}"#.utf8))
        Self.expectHidden(response, [Self.token, Self.secret])
    }

    @Test("TokenResponse and IDToken: no token")
    func tokens() throws {
        let tokens = TokenResponse(accessToken: Self.token, refreshToken: Self.secret, idToken: "id.token.value")
        Self.expectHidden(tokens, [Self.token, Self.secret, "id.token.value"])
        let key = try IDTokenFixtures.privateKey("rsa2048", kid: "k1")
        let compact = try IDTokenFixtures.sign(IDTokenFixtures.claims(), key: key, .rs256)
        let idToken = try IDToken(compact)
        let signature = String(try #require(compact.split(separator: ".").last))
        Self.expectHidden(idToken, [signature])
        #expect(Self.renderings(idToken)[0].contains(IDTokenFixtures.issuer))
        // The outcomes that carry them: a finished login, a decoupled login, a lower-layer grant.
        let login = LoginResult(tokens: tokens, idToken: idToken, authorizationResponse: AuthorizationResponse(code: Self.secret))
        Self.expectHidden(login, [Self.token, Self.secret, "id.token.value", signature])
        Self.expectHidden(DecoupledLogin.loggedIn(tokens: tokens, idToken: idToken), [Self.token, Self.secret, "id.token.value", signature])
        Self.expectHidden(DecoupledOutcome.granted(tokens), [Self.token, Self.secret, "id.token.value"])
    }
}
