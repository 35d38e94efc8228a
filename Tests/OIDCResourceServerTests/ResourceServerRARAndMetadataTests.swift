import Foundation
import JOSE
import OIDC
import Testing

@testable import OIDCResourceServer

/// RFC 9396 on the resource-server side (access tokens, introspection) and RFC 9728 publishing (document, challenges).
@Suite("Resource server: authorization_details and protected resource metadata")
struct ResourceServerRARAndMetadataTests {
    static let details: JSONValue = [["type": "payment_initiation", "actions": ["initiate"]], ["type": "account_information"]]

    @Test("an RFC 9068 access token's authorization_details are read and matched by type")
    func accessToken() async throws {
        let token = try Fixtures.sign(Fixtures.accessTokenClaims(["authorization_details": Self.details]))
        let access = try await Fixtures.validator().validate(bearerToken: token)
        #expect(try access.authorizationDetails?.map(\.type) == ["payment_initiation", "account_information"])
        #expect(try access.requireAuthorizationDetails(types: ["payment_initiation"]).count == 2)
        let missing = #expect(throws: OIDCError.self) { try access.requireAuthorizationDetails(types: ["payment_initiation", "tax"]) }
        #expect(missing?.code == .insufficientAuthorizationDetails)
        // A valid token without the grant: 403, not 401.
        #expect(try AccessTokenRefusal(error: #require(missing), requestHeaders: [:], dpopAlgorithms: []).status == 403)
        let plain = try await Fixtures.validator().validate(bearerToken: try Fixtures.sign(Fixtures.accessTokenClaims()))
        #expect(try plain.authorizationDetails == nil)
        #expect(throws: OIDCError.self) { try plain.requireAuthorizationDetails(types: ["payment_initiation"]) }
        let malformed = try await Fixtures.validator().validate(bearerToken: try Fixtures.sign(Fixtures.accessTokenClaims(["authorization_details": ["x"]])))
        let error = #expect(throws: OIDCError.self) { _ = try malformed.authorizationDetails }
        #expect(error?.code == .invalidAuthorizationDetails)
    }

    @Test("an introspection answer's authorization_details are read and matched by type")
    func introspection() async throws {
        let body =
            #"{"active":true,"scope":"read","aud":"https://api.example","exp":1800000300,"authorization_details":[{"type":"payment_initiation","actions":["initiate"]}]}"#
        let answer = try await IntrospectionTests.introspector(IntrospectionTests.json(body)).validate("T")
        #expect(try answer.requireAuthorizationDetails(types: ["payment_initiation"]).first?.object["actions"] == ["initiate"])
        #expect(throws: OIDCError.self) { try answer.requireAuthorizationDetails(types: ["account_information"]) }
    }

    @Test("the published document names the resource, its issuer, header bearer tokens and the DPoP algorithms")
    func document() throws {
        let validator = try Fixtures.validator()
        let metadata = try validator.protectedResourceMetadata(scopes: ["read", "write"], authorizationDetailsTypes: ["payment_initiation"])
        let parsed = try ProtectedResourceMetadata(jsonBytes: Array(metadata.jsonString.utf8))
        #expect(parsed.resource == Fixtures.audience)
        #expect(parsed.authorizationServers == [Fixtures.issuer])
        #expect(parsed.bearerMethodsSupported == ["header"])
        #expect(parsed.scopesSupported == ["read", "write"])
        #expect(parsed.dpopSigningAlgValuesSupported == validator.proofs.challengeAlgorithms)
        #expect(parsed.authorizationDetailsTypesSupported == ["payment_initiation"])
        #expect(throws: OIDCError.self) { try validator.protectedResourceMetadata(resource: "http://api.example") }
    }

    @Test("every challenge of a refusal carries resource_metadata, which a client reads back")
    func challenges() throws {
        let url = try ProtectedResourceDiscovery.metadataURL(forResource: Fixtures.audience)
        let refusal = try Fixtures.validator().refusal(for: OIDCError(.missingBearerToken, "none"), requestHeaders: [:])
            .advertising(resourceMetadata: url)
        let values = refusal.headers.values(for: "WWW-Authenticate")
        #expect(values.count == 2)
        #expect(values.allSatisfy { $0.contains(#"resource_metadata="https://api.example/.well-known/oauth-protected-resource""#) })
        #expect(values[0].hasPrefix("Bearer ") && values[1].hasPrefix("DPoP "))
        let response = TransportResponse(status: refusal.status, headers: refusal.headers, body: [])
        #expect(ProtectedResourceDiscovery.resourceMetadataParameter(in: response) == url.absoluteString)
        let bearer = ResourceChallenge(scheme: .bearer, error: .invalidToken).advertising(resourceMetadata: url)
        #expect(bearer.headerValue == #"Bearer error="invalid_token", resource_metadata="https://api.example/.well-known/oauth-protected-resource""#)
        #expect(ResourceChallenge(scheme: .bearer, error: nil).headerValue == "Bearer")
    }
}
