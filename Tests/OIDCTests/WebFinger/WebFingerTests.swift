import Foundation
import JOSE
import Testing

@testable import OIDC

@Suite struct WebFingerTests {
    @Test(arguments: [
        ("acct:alice@example.com", "acct:alice@example.com", "example.com"),
        ("alice@example.com", "acct:alice@example.com", "example.com"),
        ("alice@127.0.0.1:8443", "acct:alice@127.0.0.1:8443", "127.0.0.1:8443"),
        ("acct:rp.test@127.0.0.1:8062", "acct:rp.test@127.0.0.1:8062", "127.0.0.1:8062"),
        ("https://example.com/alice#frag", "https://example.com/alice", "example.com"),
        ("https://example.com:8443/joe", "https://example.com:8443/joe", "example.com:8443"),
        ("example.com", "https://example.com", "example.com"),
        ("example.com:8080", "https://example.com:8080", "example.com:8080"),
        ("localhost:8080/alice", "https://localhost:8080/alice", "localhost:8080"),
        ("joe@example.com@example.org", "acct:joe@example.com@example.org", "example.org"),
    ])
    func normalization(_ input: String, _ resource: String, _ host: String) throws {
        let query = try WebFinger.Query(identifier: input)
        #expect(query.resource == resource)
        #expect(query.host == host)
        #expect(query.url.scheme == "https")
        #expect(query.url.path == "/.well-known/webfinger")
        let items = try FormURLEncoding.parse(try #require(query.url.query))
        #expect(items.first { $0.name == "resource" }?.value == resource)
        #expect(items.first { $0.name == "rel" }?.value == WebFinger.issuerRelation)
    }

    @Test(arguments: [
        "", "=xri", "@xri", "!xri", "http://example.com/alice", "mailto:a@example.com", "acct:", "acct:@example.com",
        "alice@", "https://", "https://user:pw@example.com/", "alice @example.com",
    ])
    func refusedIdentifiers(_ input: String) {
        #expect(throws: OIDCError.self) { try WebFinger.Query(identifier: input) }
    }

    private static func answer(_ json: String) throws -> JSONObject { try JSONParser.parseObject(Array(json.utf8), what: "jrd") }

    @Test func issuerLinkIsRead() throws {
        let jrd =
            #"{"subject":"acct:a@b","dummy":"foobar","links":[{"rel":"other","href":"http://x"},{"rel":"http://openid.net/specs/connect/1.0/issuer","href":"https://op.example/t"}]}"#
        #expect(try WebFinger.issuer(in: Self.answer(jrd)) == "https://op.example/t")
    }

    @Test(arguments: [
        (#"{"links":[{"rel":"http://openid.net/specs/connect/1.0/issuer","href":"http://127.0.0.1:8061/rp/t"}]}"#, "webfinger_insecure_issuer"),
        (#"{"links":[{"rel":"http://openid.net/specs/connect/1.0/issuer","href":"https:///nohost"}]}"#, "webfinger_insecure_issuer"),
        (#"{"links":[{"rel":"other","href":"https://op.example"}]}"#, "webfinger_no_issuer"),
        (#"{"subject":"acct:a@b"}"#, "webfinger_no_issuer"),
        (#"{"links":{"rel":"x"}}"#, "webfinger_invalid_response"),
        (#"{"links":["x"]}"#, "webfinger_invalid_response"),
        (#"{"links":[{"rel":"http://openid.net/specs/connect/1.0/issuer","href":7}]}"#, "webfinger_invalid_response"),
    ])
    func badAnswersAreTyped(_ json: String, _ code: String) throws {
        do {
            _ = try WebFinger.issuer(in: Self.answer(json))
            Issue.record("expected \(code)")
        } catch let error as OIDCError {
            #expect(error.code.rawValue == code)
        }
    }

    @Test func queryGoesOverHTTPSThenDiscoveryIsExact() async throws {
        let transport = ScriptedTransport()
        // A loopback WebFinger server and a made-up provider name: admitted by name.
        let policy = RemoteFetchPolicy(allowedHosts: [try .init("127.0.0.1:9"), try .init("op.example:443")])
        let query = try WebFinger.Query(identifier: "alice@127.0.0.1:9")
        transport.json(query.url.absoluteString, #"{"links":[{"rel":"http://openid.net/specs/connect/1.0/issuer","href":"https://op.example"}]}"#)
        #expect(try await WebFinger.issuer(for: "alice@127.0.0.1:9", transport: transport, fetchPolicy: policy) == "https://op.example")
        #expect(transport.calls(query.url.absoluteString) == 1)
        #expect(query.url.absoluteString.hasPrefix("https://127.0.0.1:9/.well-known/webfinger?"))
        // The named issuer's discovery document must state exactly that issuer.
        transport.json(
            "https://op.example/.well-known/openid-configuration",
            #"{"issuer":"https://other.example","authorization_endpoint":"https://op.example/a","token_endpoint":"https://op.example/t","jwks_uri":"https://op.example/k","response_types_supported":["code"],"subject_types_supported":["public"],"id_token_signing_alg_values_supported":["RS256"]}"#
        )
        await expectOIDCError(.discoveryIssuerMismatch) {
            try await OIDCClient.discover(
                webFinger: "alice@127.0.0.1:9", authentication: .none(clientID: "c"), transport: transport,
                fetchPolicy: policy)
        }
        // A failed query is typed.
        transport.json(query.url.absoluteString, "not json", status: 404)
        await expectOIDCError(.webFingerInvalidResponse) { try await WebFinger.issuer(for: "alice@127.0.0.1:9", transport: transport, fetchPolicy: policy) }
    }
}
