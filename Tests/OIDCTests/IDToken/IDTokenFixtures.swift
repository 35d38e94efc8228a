import Foundation
import JOSE
import Testing

@testable import OIDC

/// Shared fixtures of the ID Token, key-set and discovery tests (namespaced to
/// stay clear of other test files in this target).
enum IDTokenFixtures {
    static let issuer = "https://op.example.com"
    static let clientID = "client-123"
    static let jwksURL = URL(string: "https://op.example.com/jwks")!
    static let start = Date(timeIntervalSince1970: 1_800_000_000)

    // MARK: keys

    static let keysDirectory = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Keys")

    static func text(_ name: String) throws -> String {
        try String(contentsOf: keysDirectory.appendingPathComponent(name), encoding: .utf8)
    }

    /// A private key from `Keys/NAME.jwk`, with the given kid (or none).
    static func privateKey(_ name: String, kid: String?) throws -> JWK {
        var key = try JWK(json: text(name + ".jwk"))
        key.keyID = kid
        return key
    }

    /// The public JWK JSON of `Keys/NAME.pub.jwk`, with the kid (and optionally `use`) replaced.
    static func publicJWK(_ name: String, kid: String?, use: String? = "sig") throws -> String {
        var object = try JSONParser.parseObject(Array(text(name + ".pub.jwk").utf8), what: "test key")
        object["kid"] = kid.map { .string($0) }
        object["use"] = use.map { .string($0) }
        return object.jsonString()
    }

    static func jwks(_ members: [String]) -> String { #"{"keys":["# + members.joined(separator: ",") + "]}" }

    // MARK: tokens

    /// Standard valid claims at `start`.
    static func claims(_ changes: [(String, JSONValue?)] = []) -> JSONObject {
        var object: JSONObject = [
            "iss": .string(issuer), "sub": "alice", "aud": .string(clientID),
            "exp": .integer(Int64(start.timeIntervalSince1970) + 600), "iat": .integer(Int64(start.timeIntervalSince1970)),
        ]
        for (name, value) in changes { object[name] = value }
        return object
    }

    static func sign(_ claims: JSONObject, key: JWK, _ algorithm: JWSAlgorithm) throws -> String {
        try JWT.sign(claims, key: key, algorithm: algorithm)
    }

    /// `alg: none`, empty signature.
    static func unsecured(_ claims: JSONObject) -> String {
        Base64URL.encode(#"{"alg":"none"}"#) + "." + Base64URL.encode(claims.jsonString()) + "."
    }

    /// Flips one character of the signature segment.
    static func tamper(_ token: String) -> String {
        var bytes = Array(token.utf8)
        let index = bytes.count - 3
        bytes[index] = bytes[index] == UInt8(ascii: "A") ? UInt8(ascii: "B") : UInt8(ascii: "A")
        return String(decoding: bytes, as: UTF8.self)
    }

    static func config(clock: TestClock = TestClock(), algorithms: Set<JWSAlgorithm>? = nil, secret: String? = nil) -> IDTokenValidator.Configuration {
        IDTokenValidator.Configuration(
            issuer: issuer, clientID: clientID, allowedAlgorithms: algorithms, clientSecret: secret,
            clock: clock.now, leeway: 60)
    }

    static func code(of error: any Error) -> String { (error as? OIDCError)?.code.rawValue ?? "not an OIDCError: \(error)" }
}

/// A clock tests move by hand.
final class TestClock: Sendable {
    private let current: Locked<Date>
    init(_ start: Date = IDTokenFixtures.start) { current = Locked(start) }
    var now: @Sendable () -> Date { { self.current.withLock { $0 } } }
    func advance(by seconds: TimeInterval) { current.withLock { $0 = $0.addingTimeInterval(seconds) } }
}

/// An in-memory `HTTPTransport`: scripted responses per URL (served in order,
/// the last repeating), a call count per URL, and an optional delay so that
/// concurrent callers really overlap.
final class ScriptedTransport: HTTPTransport {
    enum Reply: Sendable {
        case response(TransportResponse)
        case failure(TransportError)
    }

    private struct State {
        var scripts: [String: [Reply]] = [:]
        var calls: [String: Int] = [:]
    }

    private let state = Locked(State())
    let delay: Duration?

    init(delay: Duration? = nil) { self.delay = delay }

    func script(_ url: String, _ replies: [Reply]) { state.withLock { $0.scripts[url] = replies } }
    func json(_ url: String, _ body: String, status: Int = 200, headers: HeaderFields = ["Content-Type": "application/json"]) {
        script(url, [.response(TransportResponse(status: status, headers: headers, body: Array(body.utf8)))])
    }
    /// Replaces what `url` serves from now on.
    func then(_ url: String, _ reply: Reply) { script(url, [reply]) }
    func calls(_ url: String) -> Int { state.withLock { $0.calls[url] ?? 0 } }
    var totalCalls: Int { state.withLock { $0.calls.values.reduce(0, +) } }

    func send(_ request: TransportRequest) async throws -> TransportResponse {
        let key = request.url.absoluteString
        let reply: Reply? = state.withLock { state in
            state.calls[key, default: 0] += 1
            guard var replies = state.scripts[key], !replies.isEmpty else { return nil }
            let first = replies.count > 1 ? replies.removeFirst() : replies[0]
            state.scripts[key] = replies
            return first
        }
        if let delay { try await Task.sleep(for: delay) }
        switch reply {
        case .response(let response): return response
        case .failure(let error): throw error
        case nil: return TransportResponse(status: 404)
        }
    }
}

/// Expects `body` to throw an ``OIDCError`` with `code`.
func expectOIDCError<T>(
    _ code: OIDCError.Code, sourceLocation: SourceLocation = #_sourceLocation,
    _ body: () async throws -> T
) async {
    do {
        _ = try await body()
        Issue.record("expected \(code.rawValue), but it succeeded", sourceLocation: sourceLocation)
    } catch {
        #expect(IDTokenFixtures.code(of: error) == code.rawValue, sourceLocation: sourceLocation)
    }
}
