import Foundation
import JOSE
import OIDC
import Testing

@testable import OIDCResourceServer

/// Every refusal the access-token paths produce, through each path: the front door (`ResourceGuard.check`), its
/// throwing form, and the lower paths it covers (`AccessTokenValidator` for JWTs, `TokenIntrospector` for
/// introspection), each answered by the one table (`AccessTokenRefusal`). Same code, same HTTP answer.
@Suite("Refusal parity: front door and lower paths, JWT and introspection")
struct AccessTokenRefusalParityTests {
    enum Kind: String, CaseIterable, Sendable { case jwt, introspection }

    /// How the token travels.
    enum Presentation: Sendable {
        case nothing
        case authorization(String)  // "$T" is replaced by the token
        case twoAuthorizationFields
        case bearer
        case dpop(Proof?)  // nil: no DPoP header
    }

    /// The DPoP proof sent.
    enum Proof: Sendable { case good, otherKey, wrongMethod }

    struct Case: Sendable, CustomTestStringConvertible {
        let name: String
        let code: OIDCError.Code?
        var kinds: Set<Kind> = Set(Kind.allCases)
        var claims: [String: JSONValue?] = [:]
        var presentation: Presentation = .bearer
        var scopes: Set<String> = []
        var nonce: String? = nil
        var certificate: ClientCertificate = .notPresented
        var boundToKey = false
        var jwtType = "at+jwt"
        var testDescription: String { name }
    }

    static let url = URL(string: "https://api.example/items")!
    static let key: JWK = (try? JWK.generate(.ec(.p256))) ?? JWK(symmetricKey: [1])
    static let otherKey: JWK = (try? JWK.generate(.ec(.p256))) ?? JWK(symmetricKey: [2])
    static let certificate: [UInt8] = Array("the client's DER certificate".utf8)
    static var certificateThumbprint: String { Base64URL.encode(DigestAlgorithm.sha256.hash(certificate)) }
    static let past = JSONValue.integer(1_800_000_000 - 3600)

    static let cases: [Case] = [
        Case(name: "accepted as Bearer", code: nil, scopes: ["read"]),
        Case(name: "accepted as DPoP", code: nil, presentation: .dpop(.good), boundToKey: true),
        Case(
            name: "accepted with its certificate", code: nil, claims: ["cnf": .object(["x5t#S256": .string(certificateThumbprint)])],
            certificate: .der(certificate)),
        Case(name: "no token", code: .missingBearerToken, presentation: .nothing, scopes: ["read"]),
        Case(name: "another scheme", code: .missingBearerToken, presentation: .authorization("Basic $T")),
        Case(name: "malformed credentials", code: .invalidBearerRequest, presentation: .authorization("Bearer $T extra")),
        Case(name: "two Authorization fields", code: .invalidBearerRequest, presentation: .twoAuthorizationFields),
        Case(name: "expired", code: .expired, claims: ["exp": past]),
        Case(name: "not yet valid", code: .notYetValid, claims: ["nbf": .integer(1_800_000_000 + 3600)]),
        Case(name: "wrong audience", code: .audienceMismatch, claims: ["aud": "https://other.example"]),
        Case(name: "wrong issuer", code: .issuerMismatch, kinds: [.jwt], claims: ["iss": "https://evil.example"]),
        Case(name: "not an access token", code: .unexpectedTokenType, jwtType: "JWT"),
        Case(name: "inactive", code: .inactiveToken, kinds: [.introspection], claims: ["active": false]),
        Case(name: "insufficient scope (Bearer)", code: .insufficientScope, scopes: ["admin"]),
        Case(name: "insufficient scope (DPoP)", code: .insufficientScope, presentation: .dpop(.good), scopes: ["admin"], boundToKey: true),
        Case(name: "DPoP-bound token as Bearer", code: .dpopBoundTokenAsBearer, boundToKey: true),
        Case(name: "unbound token as DPoP", code: .dpopTokenNotBound, presentation: .dpop(.good)),
        Case(name: "DPoP without a proof", code: .dpopProofMissing, presentation: .dpop(nil), boundToKey: true),
        Case(name: "proof of another key", code: .dpopProofKeyBinding, presentation: .dpop(.otherKey), boundToKey: true),
        Case(name: "proof for another method", code: .dpopProofMethod, presentation: .dpop(.wrongMethod), boundToKey: true),
        Case(name: "proof without the server's nonce", code: .dpopProofNonce, presentation: .dpop(.good), nonce: "n-1", boundToKey: true),
        Case(
            name: "certificate-bound, no certificate", code: .certificateBoundToken,
            claims: ["cnf": .object(["x5t#S256": .string(certificateThumbprint)])]),
        Case(
            name: "certificate-bound, another certificate", code: .certificateBoundToken,
            claims: ["cnf": .object(["x5t#S256": .string(certificateThumbprint)])], certificate: .der(Array("another".utf8))),
        Case(name: "malformed cnf", code: .claimTypeMismatch, claims: ["cnf": "not an object"]),
        Case(name: "introspection endpoint unreachable", code: .transport, kinds: [.introspection], claims: ["unreachable": true]),
    ]

    /// The token for `kind`: a signed JWT, or an opaque one whose introspection answer the endpoint looks up.
    static func token(_ test: Case, _ kind: Kind) throws -> String {
        var changes = test.claims
        if test.boundToKey { changes["cnf"] = .object(["jkt": .string(key.thumbprint())]) }
        switch kind {
        case .jwt:
            return try Fixtures.sign(Fixtures.accessTokenClaims(changes), typ: test.jwtType)
        case .introspection:
            var answer: JSONObject = [
                "active": true, "scope": "read write", "client_id": "app", "sub": "alice",
                "token_type": test.jwtType == "at+jwt" ? "Bearer" : "refresh_token",
                "exp": .integer(1_800_000_000 + 300), "iat": .integer(1_800_000_000 - 10),
                "aud": .array([.string(Fixtures.audience)]), "iss": .string(Fixtures.issuer),
            ]
            for (name, value) in changes { answer[name] = value }
            return "opaque-" + Base64URL.encode(Array(JSONValue.object(answer).jsonString().utf8))
        }
    }

    /// The introspection endpoint: answers with the object the opaque token carries; "unreachable" fails the transport.
    static let endpoint = ScriptedTransport { request in
        let form = String(decoding: { if case .bytes(let bytes) = request.body { return bytes } else { return [] } }(), as: UTF8.self)
        guard let token = form.split(separator: "&").first(where: { $0.hasPrefix("token=") })?.dropFirst(6).dropFirst(7),
            let text = try? Base64URL.decode(String(token))
        else {
            return TransportResponse(status: 400, headers: [:], body: [])
        }
        if String(decoding: text, as: UTF8.self).contains("\"unreachable\":true") { throw URLError(.cannotConnectToHost) }
        return TransportResponse(status: 200, headers: ["Content-Type": "application/json"], body: text)
    }

    static func headers(_ test: Case, token: String) throws -> HeaderFields {
        switch test.presentation {
        case .nothing: return [:]
        case .authorization(let value): return ["Authorization": value.replacingOccurrences(of: "$T", with: token)]
        case .twoAuthorizationFields:
            var headers: HeaderFields = ["Authorization": "Bearer " + token]
            headers.add("Authorization", "Bearer " + token)
            return headers
        case .bearer: return ["Authorization": "Bearer " + token]
        case .dpop(let proof):
            var headers: HeaderFields = ["Authorization": "DPoP " + token]
            guard let proof else { return headers }
            let signer = proof == .otherKey ? otherKey : key
            let claims: JSONObject = [
                "jti": .string(UUID().uuidString), "htm": proof == .wrongMethod ? "POST" : "GET",
                "htu": .string(url.absoluteString), "iat": .integer(1_800_000_000),
                "ath": .string(DPoPAccessTokenHash.of(token[...])),
            ]
            headers.add(
                "DPoP",
                try JWT.sign(
                    claims, key: signer, algorithm: .es256,
                    header: ["typ": "dpop+jwt", "jwk": .object(signer.publicJWK)]))
            return headers
        }
    }

    static func frontDoor(_ kind: Kind) async throws -> ResourceGuard {
        var configuration = ResourceGuard.Configuration(issuer: Fixtures.issuer, audience: Fixtures.audience)
        configuration.clock = Fixtures.clock
        configuration.transport = endpoint
        switch kind {
        case .jwt: configuration.keys = .keySet(try Fixtures.publicKeys())
        case .introspection:
            var introspection = ResourceGuard.Introspection(authentication: .clientSecretBasic(clientID: Fixtures.clientID, secret: "s"))
            introspection.endpoint = IntrospectionTests.endpoint
            configuration.tokens = .introspection(introspection)
        }
        return try await ResourceGuard(configuration: configuration)
    }

    /// The lower path's refusal (or nil when it accepts), through its own table call.
    static func lowerPath(_ kind: Kind, _ test: Case, headers: HeaderFields) async throws -> AccessTokenRefusal? {
        let nonce: DPoPProofValidator.NonceRule = test.nonce.map { .required($0) } ?? .notRequired
        switch kind {
        case .jwt:
            let validator = try Fixtures.validator()
            do {
                _ = try await validator.validate(
                    method: "GET", url: url, headers: headers, requiredScopes: test.scopes, dpopNonce: nonce,
                    clientCertificate: test.certificate)
                return nil
            } catch let error as OIDCError {
                return validator.refusal(for: error, requestHeaders: headers, requiredScopes: test.scopes, dpopNonce: test.nonce)
            }
        case .introspection:
            let introspector = try IntrospectionTests.introspector(endpoint)
            do {
                _ = try await introspector.validate(
                    method: "GET", url: url, headers: headers, requiredScopes: test.scopes, dpopNonce: nonce,
                    clientCertificate: test.certificate)
                return nil
            } catch let error as OIDCError {
                return introspector.refusal(for: error, requestHeaders: headers, requiredScopes: test.scopes, dpopNonce: test.nonce)
            } catch {
                // The lower path lets a transport's own error through; the front door names it `.transport` (503).
                return AccessTokenRefusal(
                    error: OIDCError(.transport, "x"), requestHeaders: headers, requiredScopes: test.scopes,
                    dpopAlgorithms: introspector.proofs.challengeAlgorithms, dpopNonce: test.nonce)
            }
        }
    }

    @Test("each refusal: the same code and the same HTTP answer through every path", arguments: cases)
    func parity(_ test: Case) async throws {
        var answers: [Kind: AccessTokenRefusal?] = [:]
        for kind in Kind.allCases where test.kinds.contains(kind) {
            let headers = try Self.headers(test, token: try Self.token(test, kind))
            let frontDoor = try await Self.frontDoor(kind)
            let decision = await frontDoor.check(
                method: "GET", url: Self.url, headers: headers, requiredScopes: test.scopes,
                dpopNonce: test.nonce, clientCertificate: test.certificate)
            let lower = try await Self.lowerPath(kind, test, headers: headers)
            switch decision {
            case .allowed(let token):
                #expect(test.code == nil, "\(kind): accepted, expected \(test.code?.rawValue ?? "")")
                #expect(lower == nil, "\(kind): the lower path refused with \(lower?.cause.code.rawValue ?? "")")
                #expect(token.subject == "alice" && token.clientID == "app" && token.scopes == ["read", "write"])
                if case .dpop = test.presentation { #expect(token.scheme == .dpop && token.proof?.thumbprint == Self.key.thumbprint()) }
            case .refused(let refusal):
                #expect(refusal.cause.code == test.code, "\(kind): \(refusal.cause)")
                let lowerRefusal = try #require(lower, "\(kind): the lower path accepted")
                if kind == .jwt || test.code != .transport { #expect(lowerRefusal.cause.code == refusal.cause.code, "\(kind)") }
                #expect(lowerRefusal == refusal, "\(kind): \(lowerRefusal) vs \(refusal)")
                #expect(lowerRefusal.headers == refusal.headers && lowerRefusal.body == refusal.body)
                // The throwing form of the front door agrees.
                await #expect(throws: OIDCError.self) {
                    _ = try await frontDoor.validate(
                        method: "GET", url: Self.url, headers: headers, requiredScopes: test.scopes,
                        dpopNonce: test.nonce, clientCertificate: test.certificate)
                }
            }
            answers[kind] = decision.refusal
        }
        // JWT and introspection answer a refusal they share the same way.
        if let jwt = answers[.jwt], let introspection = answers[.introspection] {
            #expect(jwt == introspection, "\(String(describing: jwt)) vs \(String(describing: introspection))")
        }
    }

    @Test("the table's statuses: 400, 401, 403, 503 and use_dpop_nonce with DPoP-Nonce")
    func statuses() async throws {
        func refusal(_ name: String, _ kind: Kind = .jwt) async throws -> AccessTokenRefusal {
            let test = try #require(Self.cases.first { $0.name == name })
            let headers = try Self.headers(test, token: try Self.token(test, kind))
            let decision = try await Self.frontDoor(kind).check(
                method: "GET", url: Self.url, headers: headers, requiredScopes: test.scopes,
                dpopNonce: test.nonce, clientCertificate: test.certificate)
            return try #require(decision.refusal)
        }
        #expect(try await refusal("malformed credentials").status == 400)
        #expect(try await refusal("expired").status == 401)
        #expect(try await refusal("insufficient scope (Bearer)").status == 403)
        let unreachable = try await refusal("introspection endpoint unreachable", .introspection)
        #expect(unreachable.status == 503 && unreachable.headers.fields.isEmpty)
        #expect(String(decoding: unreachable.body, as: UTF8.self) == #"{"error":"temporarily_unavailable"}"#)
        let nonce = try await refusal("proof without the server's nonce")
        #expect(nonce.status == 401 && nonce.headers["DPoP-Nonce"] == "n-1" && nonce.error == .useDPoPNonce)
        #expect(String(decoding: nonce.body, as: UTF8.self) == #"{"error":"use_dpop_nonce"}"#)
    }
}

extension AccessTokenRefusalParityTests {
    @Test("signed introspection answers required through the front door: a plain JSON answer is refused (RFC 9701)")
    func signedAnswersRequired() async throws {
        var configuration = ResourceGuard.Configuration(issuer: Fixtures.issuer, audience: Fixtures.audience)
        configuration.clock = Fixtures.clock
        configuration.transport = Self.endpoint
        configuration.keys = .keySet(try Fixtures.publicKeys())
        var introspection = ResourceGuard.Introspection(authentication: .clientSecretBasic(clientID: Fixtures.clientID, secret: "s"))
        introspection.endpoint = IntrospectionTests.endpoint
        introspection.signedAnswers = .required
        configuration.tokens = .introspection(introspection)
        let test = try #require(Self.cases.first)
        let headers = try Self.headers(test, token: try Self.token(test, .introspection))
        let decision = try await ResourceGuard(configuration: configuration).check(method: "GET", url: Self.url, headers: headers)
        let refusal = try #require(decision.refusal)
        #expect(refusal.cause.code == .unsignedIntrospectionResponse && refusal.status == 401)
        // The same answer accepted when plain JSON is what the configuration asks for.
        introspection.signedAnswers = nil
        configuration.tokens = .introspection(introspection)
        guard case .allowed = try await ResourceGuard(configuration: configuration).check(method: "GET", url: Self.url, headers: headers) else {
            Issue.record("a plain JSON answer was refused without signed answers configured")
            return
        }
    }
}

extension ResourceGuard.Decision {
    /// The refusal, or nil when allowed.
    var refusal: AccessTokenRefusal? {
        if case .refused(let refusal) = self { return refusal }
        return nil
    }
}
