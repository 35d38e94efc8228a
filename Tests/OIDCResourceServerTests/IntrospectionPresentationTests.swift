import Foundation
import JOSE
import OIDC
import Testing

@testable import OIDCResourceServer

/// RFC 9449 §7 and RFC 8705 §3 on the introspection path, through its one call
/// `TokenIntrospector.validate(method:url:headers:...)`: the answer's `cnf` decides how the token may come,
/// with the rule the JWT path applies (``TokenBinding``).
@Suite("Introspection presentation: Bearer, DPoP, client certificate against the answer's cnf")
struct IntrospectionPresentationTests {
    static let url = URL(string: "https://api.example/items?page=2")!
    static let certificate: [UInt8] = Array("the client's DER certificate".utf8)

    /// An introspector whose endpoint answers `active` with `cnf` (and scope `read`).
    static func introspector(cnf: JSONValue?, scope: String = "read") throws -> (TokenIntrospector, ScriptedTransport) {
        var answer: JSONObject = ["active": true, "scope": .string(scope), "sub": "alice", "client_id": "app"]
        if let cnf { answer["cnf"] = cnf }
        let transport = IntrospectionTests.json(JSONValue.object(answer).jsonString(sortedKeys: true))
        return (try IntrospectionTests.introspector(transport), transport)
    }

    static func code(
        _ introspector: TokenIntrospector, _ headers: HeaderFields, scopes: Set<String> = [],
        certificate: ClientCertificate = .notPresented
    ) async -> String? {
        do {
            _ = try await introspector.validate(method: "GET", url: url, headers: headers, requiredScopes: scopes, clientCertificate: certificate)
            return nil
        } catch let error as OIDCError {
            return error.code.rawValue
        } catch {
            return "unexpected \(error)"
        }
    }

    static func dpop(_ token: String, proof: String?) -> HeaderFields {
        var headers: HeaderFields = ["Authorization": "DPoP " + token]
        if let proof { headers.add("DPoP", proof) }
        return headers
    }

    @Test("cnf.jkt: refused as Bearer (with a DPoP challenge), accepted with the DPoP scheme and a proof of that key only")
    func jwkBound() async throws {
        let key = try DPoPKey.generate()
        let (introspector, _) = try Self.introspector(cnf: ["jkt": .string(key.thumbprint)])
        let token = "opaque-token-1"
        let bearer: HeaderFields = ["Authorization": "Bearer " + token]
        #expect(await Self.code(introspector, bearer) == "dpop_bound_token_as_bearer")
        // Even with a valid proof of the bound key alongside: the scheme is Bearer.
        let alongside = try key.proof(method: "GET", url: Self.url, accessToken: token, now: Fixtures.now)
        #expect(await Self.code(introspector, ["Authorization": "Bearer " + token, "DPoP": alongside]) == "dpop_bound_token_as_bearer")
        let refusal = introspector.refusal(for: OIDCError(.dpopBoundTokenAsBearer, "x"), requestHeaders: bearer)
        let challenges = refusal.headers.values(for: "WWW-Authenticate")
        #expect(
            refusal.status == 401 && challenges.first?.hasPrefix("Bearer error=\"invalid_token\"") == true
                && challenges.dropFirst().first?.hasPrefix("DPoP algs=\"") == true, "\(challenges)")

        let proof = try key.proof(method: "GET", url: Self.url, accessToken: token, now: Fixtures.now)
        let accepted = try await introspector.validate(method: "GET", url: Self.url, headers: Self.dpop(token, proof: proof), requiredScopes: ["read"])
        #expect(accepted.scheme == .dpop && accepted.introspection.subject == "alice")
        #expect(accepted.proof?.thumbprint == key.thumbprint)
        #expect(!"\(accepted)".contains(token))
        // The same proof again: a replay.
        #expect(await Self.code(introspector, Self.dpop(token, proof: proof)) == "dpop_proof_replayed")
        // Another key's proof, with the right ath, htm and htu.
        let attacker = try DPoPKey.generate().proof(method: "GET", url: Self.url, accessToken: token, now: Fixtures.now)
        #expect(await Self.code(introspector, Self.dpop(token, proof: attacker)) == "dpop_proof_jkt")
        // A proof of the key for another token (ath).
        let otherToken = try key.proof(method: "GET", url: Self.url, accessToken: "another-token", now: Fixtures.now)
        #expect(await Self.code(introspector, Self.dpop(token, proof: otherToken)) == "dpop_proof_ath")
        // A proof for another method.
        let post = try key.proof(method: "POST", url: Self.url, accessToken: token, now: Fixtures.now)
        #expect(await Self.code(introspector, Self.dpop(token, proof: post))?.hasPrefix("dpop_proof_") == true)
        // The scopes are still required.
        let fresh = try key.proof(method: "GET", url: Self.url, accessToken: token, now: Fixtures.now)
        #expect(await Self.code(introspector, Self.dpop(token, proof: fresh), scopes: ["admin"]) == "insufficient_scope")
    }

    @Test("the DPoP scheme without exactly one proof is refused before the endpoint is asked")
    func proofMissing() async throws {
        let (introspector, transport) = try Self.introspector(cnf: ["jkt": .string(try DPoPKey.generate().thumbprint)])
        #expect(await Self.code(introspector, Self.dpop("T", proof: nil)) == "dpop_proof_missing")
        var two = Self.dpop("T", proof: "a.b.c")
        two.add("DPoP", "d.e.f")
        #expect(await Self.code(introspector, two) == "dpop_proof_missing")
        #expect(transport.requests.isEmpty)
        #expect(await Self.code(introspector, [:]) == "missing_bearer_token")
    }

    @Test("cnf.x5t#S256: accepted with that client certificate only (Bearer), never as DPoP without cnf.jkt")
    func certificateBound() async throws {
        let thumbprint = try #require(ClientCertificate.der(Self.certificate).thumbprint)
        let (introspector, _) = try Self.introspector(cnf: ["x5t#S256": .string(thumbprint)])
        let bearer: HeaderFields = ["Authorization": "Bearer T"]
        #expect(await Self.code(introspector, bearer) == "certificate_bound_token")
        #expect(await Self.code(introspector, bearer, certificate: .der(Array("another certificate".utf8))) == "certificate_bound_token")
        let accepted = try await introspector.validate(method: "GET", url: Self.url, headers: bearer, clientCertificate: .der(Self.certificate))
        #expect(accepted.scheme == .bearer && accepted.proof == nil && accepted.introspection.scopes == ["read"])
        let key = try DPoPKey.generate()
        let proof = try key.proof(method: "GET", url: Self.url, accessToken: "T", now: Fixtures.now)
        #expect(await Self.code(introspector, Self.dpop("T", proof: proof), certificate: .der(Self.certificate)) == "dpop_token_not_bound")
    }

    @Test("both bindings: the certificate and the DPoP key are both required")
    func bothBindings() async throws {
        let key = try DPoPKey.generate()
        let thumbprint = try #require(ClientCertificate.der(Self.certificate).thumbprint)
        let (introspector, _) = try Self.introspector(cnf: ["jkt": .string(key.thumbprint), "x5t#S256": .string(thumbprint)])
        let proof = try key.proof(method: "GET", url: Self.url, accessToken: "T", now: Fixtures.now)
        #expect(await Self.code(introspector, Self.dpop("T", proof: proof)) == "certificate_bound_token")
        #expect(await Self.code(introspector, ["Authorization": "Bearer T"], certificate: .der(Self.certificate)) == "dpop_bound_token_as_bearer")
        let fresh = try key.proof(method: "GET", url: Self.url, accessToken: "T", now: Fixtures.now)
        let accepted = try await introspector.validate(
            method: "GET", url: Self.url, headers: Self.dpop("T", proof: fresh),
            clientCertificate: .der(Self.certificate))
        #expect(accepted.scheme == .dpop)
    }

    @Test("an unbound answer: Bearer accepted with or without a certificate; the DPoP scheme is dpop_token_not_bound; a malformed cnf is refused")
    func unbound() async throws {
        let (introspector, _) = try Self.introspector(cnf: nil)
        let accepted = try await introspector.validate(method: "GET", url: Self.url, headers: ["Authorization": "Bearer T"], requiredScopes: ["read"])
        #expect(accepted.scheme == .bearer && accepted.introspection.subject == "alice")
        #expect(await Self.code(introspector, ["Authorization": "Bearer T"], certificate: .der(Self.certificate)) == nil)
        let proof = try DPoPKey.generate().proof(method: "GET", url: Self.url, accessToken: "T", now: Fixtures.now)
        #expect(await Self.code(introspector, Self.dpop("T", proof: proof)) == "dpop_token_not_bound")
        let (malformed, _) = try Self.introspector(cnf: ["jkt": 7])
        #expect(await Self.code(malformed, ["Authorization": "Bearer T"]) == "claim_type_mismatch")
    }
}
