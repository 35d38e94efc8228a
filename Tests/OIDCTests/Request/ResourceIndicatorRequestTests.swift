import Foundation
import JOSE
import Testing

@testable import OIDC

/// RFC 8707 `resource` on the authorization request itself (URL and PAR body).
@Suite("resource indicators on the authorization request")
struct ResourceIndicatorRequestTests {
    static let api = URL(string: "https://api.example.com/v1")!
    static let other = URL(string: "urn:example:resource:ledger")!

    @Test("each resource is one parameter, in order, after claims, on the URL and in the PAR parameters")
    func several() throws {
        var request = Fixture.request(scopes: ["openid", "api.read"])
        request.resources = [Self.api, Self.other]
        request.additionalParameters["zz_extra"] = "1"
        let url = try request.authorizationURL(at: Fixture.endpoint)
        let query = try Fixture.queryItems(url)
        #expect(query.filter { $0.name == "resource" }.map(\.value) == [Self.api.absoluteString, Self.other.absoluteString])
        #expect(url.absoluteString.contains("&resource=https%3A%2F%2Fapi.example.com%2Fv1&resource=urn%3Aexample%3Aresource%3Aledger&zz_extra=1"))
        let form = try request.authorizationParameters()
        #expect(form.filter { $0.name == "resource" }.map(\.value) == [Self.api.absoluteString, Self.other.absoluteString])
        #expect(form.last?.name == "zz_extra")
    }

    @Test("no resource parameter when none is set")
    func none() throws {
        let url = try Fixture.request().authorizationURL(at: Fixture.endpoint)
        #expect(try Fixture.queryItems(url).contains { $0.name == "resource" } == false)
    }

    @Test(
        "a relative URI or one with a fragment is refused (RFC 8707 §2)",
        arguments: ["/relative/path", "https://api.example.com/v1#part"])
    func invalid(_ text: String) throws {
        var request = Fixture.request()
        request.resources = [Self.api, try #require(URL(string: text))]
        #expect(errorCode { _ = try request.authorizationURL(at: Fixture.endpoint) } == .invalidResourceIndicator)
        #expect(errorCode { _ = try request.authorizationParameters() } == .invalidResourceIndicator)
    }

    @Test("resource is reserved: additionalParameters cannot carry it, nor the base URL's query")
    func reserved() throws {
        var request = Fixture.request()
        request.additionalParameters["resource"] = Self.api.absoluteString
        #expect(errorCode { _ = try request.authorizationURL(at: Fixture.endpoint) } == .parameterCollision)
        let base = try #require(URL(string: Fixture.endpoint.absoluteString + "?resource=x"))
        #expect(errorCode { _ = try Fixture.request().authorizationURL(at: base) } == .parameterCollision)
    }

    @Test("resources survive persistence; a request encoded without them still decodes")
    func persistence() throws {
        var request = Fixture.request()
        request.resources = [Self.api, Self.other]
        let pending = try request.pendingAuthorizationWithoutIssuerCheck(at: Fixture.endpoint)
        let restored = try JSONDecoder().decode(PendingAuthorization.self, from: try JSONEncoder().encode(pending))
        #expect(restored.request.resources == [Self.api, Self.other])
        #expect(restored.authorizationURL == pending.authorizationURL)

        let plain = try Fixture.pending()
        let decoded = try JSONDecoder().decode(PendingAuthorization.self, from: try JSONEncoder().encode(plain))
        #expect(decoded.request.resources.isEmpty && decoded == plain)
        #expect(request.description.contains("resource: [\"https://api.example.com/v1\""))
    }
}
