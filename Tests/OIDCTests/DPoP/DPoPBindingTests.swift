import Foundation
import JOSE
import Testing

@testable import OIDC

@Suite("DPoP nonces and the one-retry nonce challenge")
struct DPoPBindingTests {
    static let token = URL(string: "https://as.example/token")!
    static let api = URL(string: "https://as.example/api/resource?q=1")!

    func nonceOf(_ request: TransportRequest) throws -> String? {
        try decodeJWT(try #require(request.headers["DPoP"])).claims["nonce"]?.stringValue
    }

    @Test("authorization server: 400 use_dpop_nonce + DPoP-Nonce → one retry with the nonce and a new jti; the nonce is remembered")
    func authorizationServerChallenge() async throws {
        let transport = CannedTransport { request in
            let proof = try decodeJWT(request.headers["DPoP"] ?? "").claims
            if proof["nonce"] == "n-1" { return TransportResponse(status: 200, headers: ["DPoP-Nonce": "n-2"], body: Array("{}".utf8)) }
            return TransportResponse(
                status: 400, headers: ["DPoP-Nonce": "n-1", "Content-Type": "application/json"],
                body: Array(#"{"error":"use_dpop_nonce","error_description":"nonce required"}"#.utf8))
        }
        let binding = DPoPBinding(key: try DPoPKey.generate())
        let built = Locked(0)
        let response = try await binding.send(role: .authorizationServer, transport: transport) {
            built.withLock { $0 += 1 }
            return TransportRequest(method: "POST", url: Self.token, body: .bytes(Array("grant_type=x".utf8)))
        }
        #expect(response.status == 200)
        #expect(built.withLock { $0 } == 2)
        let requests = transport.requests
        #expect(requests.count == 2)
        #expect(try nonceOf(requests[0]) == nil)
        #expect(try nonceOf(requests[1]) == "n-1")
        let jtis = try requests.map { try decodeJWT($0.headers["DPoP"] ?? "").claims["jti"] }
        #expect(jtis[0] != jtis[1])
        // The success response's newer nonce is what the next request sends; the RS role has none.
        #expect(binding.nonces.nonce(for: Self.token, role: .authorizationServer) == "n-2")
        #expect(binding.nonces.nonce(for: Self.api, role: .resourceServer) == nil)
        #expect(requests.allSatisfy { $0.headers["Authorization"] == nil })
    }

    @Test("resource server: 401 WWW-Authenticate DPoP error=use_dpop_nonce → one retry with Authorization: DPoP, ath and the nonce")
    func resourceServerChallenge() async throws {
        let transport = CannedTransport { request in
            if try decodeJWT(request.headers["DPoP"] ?? "").claims["nonce"] == "rs-nonce" { return TransportResponse(status: 200, body: Array("{}".utf8)) }
            return TransportResponse(
                status: 401,
                headers: [
                    "WWW-Authenticate": #"DPoP error="use_dpop_nonce", error_description="Resource server requires nonce in DPoP proof""#,
                    "DPoP-Nonce": "rs-nonce",
                ])
        }
        let binding = DPoPBinding(key: try DPoPKey.generate(.ed25519))
        let response = try await binding.send(role: .resourceServer, accessToken: "the-access-token", transport: transport) {
            TransportRequest(method: "GET", url: Self.api)
        }
        #expect(response.status == 200)
        let requests = transport.requests
        #expect(requests.count == 2)
        for request in requests {
            #expect(request.headers["Authorization"] == "DPoP the-access-token")
            let claims = try decodeJWT(try #require(request.headers["DPoP"])).claims
            #expect(claims["ath"]?.stringValue == DPoPKey.accessTokenHash("the-access-token"))
            #expect(claims["htu"] == "https://as.example/api/resource")
        }
        #expect(binding.nonces.nonce(for: Self.api, role: .resourceServer) == "rs-nonce")
        #expect(binding.nonces.nonce(for: Self.api, role: .authorizationServer) == nil)
    }

    @Test("send(_:accessToken:transport:): a resource call goes out as DPoP (never its own Bearer) with htm, htu, ath; one nonce retry")
    func publicResourceSend() async throws {
        let transport = CannedTransport { request in
            if try decodeJWT(request.headers["DPoP"] ?? "").claims["nonce"] == "rs-1" { return TransportResponse(status: 200, body: Array("{}".utf8)) }
            return TransportResponse(status: 401, headers: ["WWW-Authenticate": #"DPoP error="use_dpop_nonce""#, "DPoP-Nonce": "rs-1"])
        }
        let binding = DPoPBinding(key: try DPoPKey.generate())
        let request = TransportRequest(
            method: .post, url: Self.api, headers: ["Authorization": "Bearer stale", "Content-Type": "application/json"],
            body: .bytes(Array("{}".utf8)))
        let response = try await binding.send(request, accessToken: "bound-token", transport: transport)
        #expect(response.status == 200)
        let requests = transport.requests
        #expect(requests.count == 2)
        for sent in requests {
            #expect(sent.headers.values(for: "Authorization") == ["DPoP bound-token"])
            #expect(sent.headers["Content-Type"] == "application/json")
            let proof = try decodeJWT(try #require(sent.headers["DPoP"]))
            #expect(proof.claims["htm"] == "POST")
            #expect(proof.claims["htu"] == "https://as.example/api/resource")
            #expect(proof.claims["ath"]?.stringValue == DPoPKey.accessTokenHash("bound-token"))
            #expect(proof.header["jwk"] != nil)
        }
        #expect(try nonceOf(requests[1]) == "rs-1")
        // Remembered for the resource server only: the next call sends it at once.
        #expect(binding.nonces.nonce(for: Self.api, role: .resourceServer) == "rs-1")
        #expect(binding.nonces.nonce(for: Self.api, role: .authorizationServer) == nil)
    }

    @Test("never more than one retry: a second challenge is returned as it came")
    func oneRetryOnly() async throws {
        let counter = Locked(0)
        let transport = CannedTransport { _ in
            let n = counter.withLock {
                $0 += 1; return $0
            }
            return TransportResponse(status: 400, headers: ["DPoP-Nonce": "nonce-\(n)"], body: Array(#"{"error":"use_dpop_nonce"}"#.utf8))
        }
        let binding = DPoPBinding(key: try DPoPKey.generate())
        let response = try await binding.send(role: .authorizationServer, transport: transport) { TransportRequest(method: "POST", url: Self.token) }
        #expect(response.status == 400)
        #expect(transport.requests.count == 2)
    }

    @Test("no retry without a new nonce, for other errors, or when the nonce header is invalid")
    func noRetry() async throws {
        let cases: [TransportResponse] = [
            TransportResponse(status: 400, body: Array(#"{"error":"use_dpop_nonce"}"#.utf8)),  // no DPoP-Nonce header
            TransportResponse(status: 400, headers: ["DPoP-Nonce": "n"], body: Array(#"{"error":"invalid_grant"}"#.utf8)),
            TransportResponse(status: 401, headers: ["DPoP-Nonce": "n", "WWW-Authenticate": #"DPoP error="invalid_token""#]),
            TransportResponse(status: 400, headers: ["DPoP-Nonce": "bad nonce\"with quote"], body: Array(#"{"error":"use_dpop_nonce"}"#.utf8)),
        ]
        for canned in cases {
            let transport = CannedTransport { _ in canned }
            let binding = DPoPBinding(key: try DPoPKey.generate())
            let response = try await binding.send(role: .authorizationServer, transport: transport) { TransportRequest(method: "POST", url: Self.token) }
            #expect(response.status == canned.status)
            #expect(transport.requests.count == 1)
        }
        // The same nonce as the one just sent: no loop.
        let transport = CannedTransport { _ in TransportResponse(status: 400, headers: ["DPoP-Nonce": "same"], body: Array(#"{"error":"use_dpop_nonce"}"#.utf8))
        }
        let binding = DPoPBinding(key: try DPoPKey.generate())
        binding.nonces.record("same", for: Self.token, role: .authorizationServer)
        _ = try await binding.send(role: .authorizationServer, transport: transport) { TransportRequest(method: "POST", url: Self.token) }
        #expect(transport.requests.count == 1)
    }

    @Test("nonce store: per origin (default ports explicit) and per role; NQCHAR only")
    func nonceStore() {
        let store = DPoPNonceStore()
        #expect(store.record("abc", for: URL(string: "https://as.example/token")!, role: .authorizationServer))
        #expect(store.nonce(for: URL(string: "https://AS.example:443/par")!, role: .authorizationServer) == "abc")
        #expect(store.nonce(for: URL(string: "https://as.example:8443/token")!, role: .authorizationServer) == nil)
        #expect(store.nonce(for: URL(string: "http://as.example/token")!, role: .authorizationServer) == nil)
        #expect(store.nonce(for: URL(string: "https://as.example/token")!, role: .resourceServer) == nil)
        #expect(!store.record("", for: URL(string: "https://as.example")!, role: .resourceServer))
        #expect(!store.record("a b", for: URL(string: "https://as.example")!, role: .resourceServer))
        #expect(!store.record("a\\b", for: URL(string: "https://as.example")!, role: .resourceServer))
        #expect(!store.record(String(repeating: "a", count: 1025), for: URL(string: "https://as.example")!, role: .resourceServer))
    }

    @Test("a transport failure is a typed .transport error")
    func transportFailure() async throws {
        let transport = CannedTransport { _ in throw TransportError.timedOut }
        let binding = DPoPBinding(key: try DPoPKey.generate())
        await #expect(throws: OIDCError.self) {
            _ = try await binding.send(role: .resourceServer, accessToken: "t", transport: transport) { TransportRequest(url: Self.api) }
        }
    }
}
