import Foundation
import JOSE
import OIDC
import OIDCResourceServer
import Testing
import Vapor
import VaporTesting

@testable import vapor_app

/// The glue a Vapor user copies (Sources/vapor-app/VaporGlue.swift), on an in-memory Vapor application.
@Suite("vapor-app: the Vapor glue")
struct VaporGlueTests {
    static let issuer = "https://issuer.example"
    static let base = "https://api.example"

    /// An RFC 9068 access token for `base`, signed by `key`.
    static func token(_ key: JWK, scope: String) throws -> String {
        let now = Int64(Date().timeIntervalSince1970)
        let claims: JSONObject = [
            "iss": .string(issuer), "aud": .string(base), "sub": "alice", "client_id": "client-1", "scope": .string(scope),
            "iat": .integer(now), "exp": .integer(now + 300), "jti": .string(UUID().uuidString),
        ]
        return try JWT.sign(claims, key: key, algorithm: .es256, header: ["typ": "at+jwt"])
    }

    @Test("the access-token middleware puts the accepted token on the request; a refusal is its status and challenge")
    func accessTokenMiddleware() async throws {
        let key = try JWK.generate(.ec(.p256))
        var configuration = ResourceGuard.Configuration(issuer: Self.issuer, audience: Self.base)
        configuration.keys = .keySet(JWKSet(keys: [key.publicKey]))
        let resourceGuard = try await ResourceGuard(configuration: configuration)
        try await withApp { app in
            app.grouped(AccessTokenMiddleware(resourceGuard: resourceGuard, baseURL: Self.base, requiredScopes: ["read"]))
                .get("api") { request async -> String in "\(request.accessToken?.subject ?? "none") \(request.accessToken?.clientID ?? "none")" }
            try await app.testing().test(.GET, "api") { response in
                #expect(response.status == .unauthorized)
                #expect(response.headers[canonicalForm: "WWW-Authenticate"].contains { $0.hasPrefix("Bearer") })
            }
            try await app.testing().test(.GET, "api", headers: ["Authorization": "Bearer " + (try Self.token(key, scope: "read"))]) { response in
                #expect(response.status == .ok)
                #expect(response.body.string == "alice client-1")
            }
            try await app.testing().test(.GET, "api", headers: ["Authorization": "Bearer " + (try Self.token(key, scope: "write"))]) { response in
                #expect(response.status == .forbidden)
                #expect(response.headers.first(name: "WWW-Authenticate")?.contains("insufficient_scope") == true)
            }
            let other = try JWK.generate(.ec(.p256))
            try await app.testing().test(.GET, "api", headers: ["Authorization": "Bearer " + (try Self.token(other, scope: "read"))]) { response in
                #expect(response.status == .unauthorized)
                #expect(response.headers.first(name: "WWW-Authenticate")?.contains("invalid_token") == true)
            }
        }
    }

    @Test("a toolkit error thrown by a route answers the status of its category and its code, not its reason")
    func errorMiddleware() async throws {
        try await withApp { app in
            let routes = app.grouped(OIDCErrorMiddleware())
            routes.get("down") { _ async throws -> String in throw OIDCError(.transport, "the provider is down: secret-detail") }
            routes.get("refused") { _ async throws -> String in throw OIDCError(.stateMismatch, "state") }
            try await app.testing().test(.GET, "down") { response in
                #expect(response.status == .serviceUnavailable)
                #expect(response.body.string == "{\"error\":\"transport\"}")  // the reason stays in the log
            }
            try await app.testing().test(.GET, "refused") { response in
                #expect(response.status == .badRequest)
                #expect(response.body.string == "{\"error\":\"state_mismatch\"}")
            }
        }
    }

    @Test("header fields both ways keep repeated fields apart (two Set-Cookie), and an answer becomes a Response")
    func headersAndAnswers() throws {
        var fields = HeaderFields()
        fields.add("Set-Cookie", "a=1")
        fields.add("Set-Cookie", "b=2")
        fields.add("Location", "/me")
        let response = Response(TransportResponse(status: 302, headers: fields, body: Array("x".utf8)))
        #expect(response.status == .found)
        #expect(response.headers[canonicalForm: "Set-Cookie"] == ["a=1", "b=2"])
        #expect(HeaderFields(response.headers).values(for: "set-cookie") == ["a=1", "b=2"])
        #expect(response.body.string == "x")
    }
}
