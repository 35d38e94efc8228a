import Foundation
import JOSE
import OIDC
import OIDCSession
import Testing

/// A token endpoint and an API on two origins: the API accepts `DPoP <valid>` with a
/// proof whose `ath` matches (and, when `nonce` is set, carries it); records everything.
final class DPoPWorld: HTTPTransport, Sendable {
    struct Seen: Sendable { var url: URL; var authorization: String?; var proof: JSONObject? }
    private let state = Locked<(valid: String, nonce: String?, seen: [Seen], issued: Int)>(("AT-1", nil, [], 1))

    init(requireNonce: String? = nil) { state.withLock { $0.nonce = requireNonce } }
    var seen: [Seen] { state.withLock { $0.seen } }

    func send(_ request: TransportRequest) async throws -> TransportResponse {
        let proof = try request.headers["DPoP"].map { try JSONParser.parseObject(try CompactJWS($0).payload, what: "proof") }
        state.withLock { $0.seen.append(Seen(url: request.url, authorization: request.headers["Authorization"], proof: proof)) }
        if request.url.host == "as.example" {
            guard proof != nil else { return TransportResponse(status: 400, body: Array(#"{"error":"invalid_dpop_proof"}"#.utf8)) }
            let token = state.withLock { s -> String in
                s.issued += 1; s.valid = "AT-\(s.issued)"; return s.valid
            }
            return TransportResponse(
                status: 200, body: Array(#"{"access_token":"\#(token)","token_type":"DPoP","refresh_token":"RT-2","expires_in":300}"#.utf8))
        }
        if request.url.host != "api.example" { return TransportResponse(status: 200) }
        let (valid, nonce) = state.withLock { ($0.valid, $0.nonce) }
        guard let proof, request.headers["Authorization"] == "DPoP " + valid, proof["ath"]?.stringValue == DPoPKey.accessTokenHash(valid) else {
            return TransportResponse(status: 401, headers: ["WWW-Authenticate": #"DPoP error="invalid_token""#])
        }
        if let nonce, proof["nonce"]?.stringValue != nonce {
            return TransportResponse(status: 401, headers: ["WWW-Authenticate": #"DPoP error="use_dpop_nonce""#, "DPoP-Nonce": nonce])
        }
        return TransportResponse(status: 200, body: Array("ok".utf8))
    }
}

@Suite("AuthenticatedSession with DPoP-bound tokens")
struct DPoPSessionTests {
    static let api = URL(string: "https://api.example/data?x=1")!
    static let tokenEndpoint = URL(string: "https://as.example/token")!

    func session(_ world: DPoPWorld, token: String) throws -> (AuthenticatedSession, DPoPBinding) {
        let binding = DPoPBinding(key: try DPoPKey.generate())
        let session = try AuthenticatedSession(
            tokens: TokenResponse(accessToken: token, tokenType: "DPoP", refreshToken: "RT-1"),
            refresher: try Self.client(world, dpop: binding),
            configuration: .init(
                allowedOrigins: [URL(string: "https://api.example")!], transport: world,
                proactiveRefreshMargin: nil))
        return (session, binding)
    }

    /// The token client of the DPoP world, with `dpop` as its binding (it signs the refresh and refuses a Bearer answer).
    static func client(_ world: DPoPWorld, dpop: DPoPBinding?) throws -> TokenClient {
        try TokenClient(
            tokenEndpoint: tokenEndpoint, issuer: "https://as.example", authentication: .none(clientID: "app"),
            transport: world, dpop: dpop)
    }

    @Test("Authorization: DPoP with a fresh proof; a 401 refreshes through the DPoP client and the retry gets a new proof for the new token")
    func refreshAndRetry() async throws {
        let world = DPoPWorld()
        let (session, binding) = try session(world, token: "AT-0")  // the API wants AT-1 or later: the first call gets 401
        let response = try await session.send(TransportRequest(url: Self.api))
        #expect(response.status == 200)
        #expect(await session.refreshes == 1)
        let seen = world.seen
        #expect(seen.map(\.url.host) == ["api.example", "as.example", "api.example"])
        #expect(seen[0].authorization == "DPoP AT-0" && seen[0].proof?["ath"]?.stringValue == DPoPKey.accessTokenHash("AT-0"))
        #expect(seen[1].authorization == nil && seen[1].proof?["htu"] == "https://as.example/token" && seen[1].proof?["ath"] == nil)
        #expect(seen[2].authorization == "DPoP AT-2" && seen[2].proof?["ath"]?.stringValue == DPoPKey.accessTokenHash("AT-2"))
        #expect(seen[2].proof?["htu"] == "https://api.example/data")
        #expect(seen[0].proof?["jti"] != seen[2].proof?["jti"])
        #expect(await session.currentTokens?.tokenType == "DPoP")
        #expect(binding.key.thumbprint.isEmpty == false)
    }

    @Test("a resource server's nonce challenge is answered with one retry and no refresh")
    func nonceChallenge() async throws {
        let world = DPoPWorld(requireNonce: "rs-1")
        let (session, _) = try session(world, token: "AT-1")
        #expect(try await session.send(TransportRequest(url: Self.api)).status == 200)
        #expect(try await session.send(TransportRequest(url: Self.api)).status == 200)
        #expect(await session.refreshes == 0)
        #expect(world.seen.map { $0.proof?["nonce"]?.stringValue } == [nil, "rs-1", "rs-1"])
    }

    @Test("requests to other origins go out untouched; a client without DPoP cannot send a DPoP token")
    func otherOrigins() async throws {
        let world = DPoPWorld()
        let (session, _) = try session(world, token: "AT-1")
        _ = try await session.send(TransportRequest(url: URL(string: "https://elsewhere.example/x")!))
        #expect(world.seen.first?.authorization == nil && world.seen.first?.proof == nil)
        let plain = try AuthenticatedSession(
            tokens: TokenResponse(accessToken: "AT-1", tokenType: "DPoP", refreshToken: "RT-1"),
            refresher: try Self.client(world, dpop: nil),
            configuration: .init(
                allowedOrigins: [URL(string: "https://api.example")!],
                transport: world))
        await #expect(throws: OIDCError.self) { _ = try await plain.send(TransportRequest(url: Self.api)) }
        #expect(world.seen.count == 1, "nothing sent by the session without a DPoP key")
    }

    @Test("the configuration's DPoP key binds the tokens of a refresher that has none: DPoP with a proof, never Bearer")
    func configurationKey() async throws {
        let world = DPoPWorld()
        let binding = DPoPBinding(key: try DPoPKey.generate())
        let session = try AuthenticatedSession(
            tokens: TokenResponse(accessToken: "AT-1", tokenType: "DPoP", refreshToken: "RT-1"),
            refresher: CountingRefresher(api: ScriptedAPI(validToken: "x")),
            configuration: .init(
                allowedOrigins: [URL(string: "https://api.example")!],
                transport: world, dpop: binding))
        #expect(try await session.send(TransportRequest(url: Self.api)).status == 200)
        #expect(world.seen.map(\.authorization) == ["DPoP AT-1"])
        #expect(
            world.seen.first?.proof?["htu"] == "https://api.example/data" && world.seen.first?.proof?["ath"]?.stringValue == DPoPKey.accessTokenHash("AT-1"))
    }
}
