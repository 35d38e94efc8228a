import Foundation
import JOSE
import OIDC
import Testing

@testable import OIDCResourceServer

/// Keys from `Keys/`, a fixed clock, and token builders.
enum Fixtures {
    static let keysDirectory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Keys")
    static let issuer = "https://as.example"
    static let audience = "https://api.example"
    static let clientID = "rs-client"
    static let now = Date(timeIntervalSince1970: 1_800_000_000)
    static let clock: @Sendable () -> Date = { now }

    static func key(_ name: String) throws -> JWK {
        try JWK(json: try String(contentsOf: keysDirectory.appendingPathComponent(name + ".jwk"), encoding: .utf8))
    }
    static func publicKeys() throws -> JWKSet {
        try JWKSet(json: try String(contentsOf: keysDirectory.appendingPathComponent("jwks.json"), encoding: .utf8))
    }

    static func accessTokenClaims(_ changes: [String: JSONValue?] = [:]) -> JSONObject {
        var claims: JSONObject = [
            "iss": .string(issuer), "sub": "alice", "aud": .string(audience), "client_id": "app",
            "iat": .integer(1_800_000_000 - 10), "exp": .integer(1_800_000_000 + 300), "jti": "jti-1",
            "scope": "read write", "auth_time": .integer(1_800_000_000 - 100), "acr": "urn:acr:2fa",
            "amr": .array(["pwd", "otp"]),
        ]
        for (name, value) in changes { claims[name] = value }
        return claims
    }

    static func sign(_ claims: JSONObject, typ: String? = "at+jwt", key name: String = "p256", algorithm: JWSAlgorithm = .es256) throws -> String {
        var header: JSONObject = [:]
        if let typ { header["typ"] = .string(typ) }
        return try JWT.sign(claims, key: try key(name), algorithm: algorithm, header: header)
    }

    static func validator(observer: (any OIDCObserver)? = nil) throws -> AccessTokenValidator {
        AccessTokenValidator(issuer: issuer, audience: audience, keys: .keySet(try publicKeys()), clock: clock, observer: observer)
    }
}

extension AccessTokenValidator {
    /// `token` presented as `Bearer` through the validator's one path (the tests' shorthand; the library has no second path).
    func validate(bearerToken token: String, requiredScopes: Set<String> = []) async throws -> AccessToken {
        try await validate(
            method: "GET", url: URL(string: "https://api.example/resource")!, headers: ["Authorization": "Bearer " + token],
            requiredScopes: requiredScopes
        ).token
    }
}

/// Answers with a closure's response and records the requests.
final class ScriptedTransport: HTTPTransport, Sendable {
    let answer: @Sendable (TransportRequest) throws -> TransportResponse
    private let log = Locked<[TransportRequest]>([])
    init(_ answer: @escaping @Sendable (TransportRequest) throws -> TransportResponse) { self.answer = answer }
    var requests: [TransportRequest] { log.withLock { $0 } }
    func send(_ request: TransportRequest) async throws -> TransportResponse {
        log.withLock { $0.append(request) }
        return try answer(request)
    }
}

extension TransportRequest {
    var bodyText: String {
        if case .bytes(let bytes) = body { return String(decoding: bytes, as: UTF8.self) }
        return ""
    }
}

/// Expects an `OIDCError` with `code`.
func expectCode(_ code: OIDCError.Code, _ body: () async throws -> Void, sourceLocation: SourceLocationShim = .init()) async {
    do {
        try await body()
        Issue.record("expected \(code), nothing was thrown")
    } catch let error as OIDCError {
        #expect(error.code == code, "\(error)")
    } catch {
        Issue.record("expected \(code), got \(error)")
    }
}
struct SourceLocationShim {}
