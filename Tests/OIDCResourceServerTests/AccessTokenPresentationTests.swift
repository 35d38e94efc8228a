import Foundation
import JOSE
import OIDC
import Testing

@testable import OIDCResourceServer

/// RFC 9449 §7 through the one call, `AccessTokenValidator.validate(method:url:headers:)`: the token's
/// `cnf` decides the scheme it may come with, and a DPoP proof must be signed by the bound key.
@Suite("Access token presentation: Bearer, DPoP, cnf")
struct AccessTokenPresentationTests {
    static let url = URL(string: "https://api.example/items?page=2")!

    /// A token bound to `key` (cnf.jkt), or with the given `cnf`.
    static func token(boundTo key: DPoPKey?, cnf: JSONValue? = nil, scope: String = "read write") throws -> String {
        var changes: [String: JSONValue?] = ["scope": .string(scope)]
        if let key { changes["cnf"] = .object(["jkt": .string(key.thumbprint)]) }
        if let cnf { changes["cnf"] = cnf }
        return try Fixtures.sign(Fixtures.accessTokenClaims(changes))
    }

    static func dpopHeaders(_ token: String, proof: String?) -> HeaderFields {
        var headers: HeaderFields = ["Authorization": "DPoP " + token]
        if let proof { headers.add("DPoP", proof) }
        return headers
    }

    static func code(
        _ validator: AccessTokenValidator, _ headers: HeaderFields, method: String = "GET", url: URL = url,
        scopes: Set<String> = [], nonce: DPoPProofValidator.NonceRule = .notRequired,
        certificate: ClientCertificate = .notPresented
    ) async -> String? {
        do {
            _ = try await validator.validate(
                method: method, url: url, headers: headers, requiredScopes: scopes, dpopNonce: nonce,
                clientCertificate: certificate)
            return nil
        } catch let error as OIDCError {
            return error.code.rawValue
        } catch {
            return "unexpected \(error)"
        }
    }

    @Test("a cnf.jkt-bound token as Bearer is refused (was accepted with no proof): 401 Bearer invalid_token, then a DPoP challenge")
    func boundTokenAsBearer() async throws {
        let validator = try Fixtures.validator()
        let key = try DPoPKey.generate()
        let token = try Self.token(boundTo: key)
        let headers: HeaderFields = ["Authorization": "Bearer " + token]
        #expect(await Self.code(validator, headers) == "dpop_bound_token_as_bearer")
        await expectCode(.dpopBoundTokenAsBearer) { _ = try await validator.validate(bearerToken: token) }
        // Even with a valid proof of the bound key alongside: the scheme is Bearer.
        let proof = try key.proof(method: "GET", url: Self.url, accessToken: token, now: Fixtures.now)
        #expect(await Self.code(validator, ["Authorization": "Bearer " + token, "DPoP": proof]) == "dpop_bound_token_as_bearer")

        let refusal = validator.refusal(for: OIDCError(.dpopBoundTokenAsBearer, "x"), requestHeaders: headers)
        #expect(refusal.status == 401)
        let challenges = refusal.headers.values(for: "WWW-Authenticate")
        #expect(challenges.first?.hasPrefix("Bearer error=\"invalid_token\"") == true, "\(challenges)")
        #expect(challenges.dropFirst().first?.hasPrefix("DPoP algs=\"") == true, "\(challenges)")
        #expect(challenges.dropFirst().first?.contains("ES256") == true)
    }

    @Test("a bound token with a proof of its key passes; the result names the scheme and the proof")
    func boundTokenWithProof() async throws {
        let validator = try Fixtures.validator()
        let key = try DPoPKey.generate()
        let token = try Self.token(boundTo: key)
        let proof = try key.proof(method: "GET", url: Self.url, accessToken: token, now: Fixtures.now)
        let presented = try await validator.validate(method: "GET", url: Self.url, headers: Self.dpopHeaders(token, proof: proof), requiredScopes: ["read"])
        #expect(presented.scheme == .dpop)
        #expect(presented.proof?.thumbprint == key.thumbprint)
        #expect(presented.token.confirmation?.jwkThumbprint == key.thumbprint)
        #expect(presented.token.subject == "alice")
        // An unbound token as Bearer still passes.
        let bearer = try await validator.validate(method: "GET", url: Self.url, headers: ["Authorization": "Bearer " + (try Self.token(boundTo: nil))])
        #expect(bearer.scheme == .bearer && bearer.proof == nil && bearer.token.confirmation == nil)
    }

    @Test("an attacker's own proof (matching ath, own key) for a bound token is dpop_proof_jkt: 401 DPoP invalid_dpop_proof")
    func attackerProof() async throws {
        let validator = try Fixtures.validator()
        let victim = try DPoPKey.generate()
        let attacker = try DPoPKey.generate()
        let token = try Self.token(boundTo: victim)
        let proof = try attacker.proof(method: "GET", url: Self.url, accessToken: token, now: Fixtures.now)
        let headers = Self.dpopHeaders(token, proof: proof)
        #expect(await Self.code(validator, headers) == "dpop_proof_jkt")
        let refusal = validator.refusal(for: OIDCError(.dpopProofKeyBinding, "x"), requestHeaders: headers)
        #expect(refusal.status == 401)
        #expect(refusal.headers["WWW-Authenticate"]?.hasPrefix("DPoP error=\"invalid_dpop_proof\"") == true, "\(refusal)")
    }

    @Test("DPoP scheme: no proof, two proofs, an unbound token, a replayed proof, wrong htm/htu/ath are refused")
    func dpopSchemeRefusals() async throws {
        let validator = try Fixtures.validator()
        let key = try DPoPKey.generate()
        let token = try Self.token(boundTo: key)
        let proof = try key.proof(method: "GET", url: Self.url, accessToken: token, now: Fixtures.now)
        #expect(await Self.code(validator, Self.dpopHeaders(token, proof: nil)) == "dpop_proof_missing")
        var two = Self.dpopHeaders(token, proof: proof)
        two.add("DPoP", proof)
        #expect(await Self.code(validator, two) == "dpop_proof_missing")
        let unbound = try Self.token(boundTo: nil)
        #expect(
            await Self.code(
                validator,
                Self.dpopHeaders(
                    unbound,
                    proof: try key.proof(
                        method: "GET", url: Self.url, accessToken: unbound,
                        now: Fixtures.now))) == "dpop_token_not_bound")
        #expect(await Self.code(validator, Self.dpopHeaders(token, proof: proof), method: "POST") == "dpop_proof_htm")
        #expect(await Self.code(validator, Self.dpopHeaders(token, proof: proof), url: URL(string: "https://api.example/other")!) == "dpop_proof_htu")
        let otherToken = try Self.token(boundTo: key, scope: "read")
        #expect(await Self.code(validator, Self.dpopHeaders(otherToken, proof: proof)) == "dpop_proof_ath")
        #expect(await Self.code(validator, Self.dpopHeaders(token, proof: proof)) == nil)
        #expect(await Self.code(validator, Self.dpopHeaders(token, proof: proof)) == "dpop_proof_replayed")
        for code in ["dpop_proof_missing", "dpop_proof_replayed", "dpop_proof_htu"] {
            let refusal = validator.refusal(for: OIDCError(OIDCError.Code(rawValue: code), "x"), requestHeaders: Self.dpopHeaders(token, proof: nil))
            #expect(refusal.status == 401 && refusal.headers["WWW-Authenticate"]?.hasPrefix("DPoP error=\"invalid_dpop_proof\"") == true, "\(refusal)")
        }
        let notBound = validator.refusal(for: OIDCError(.dpopTokenNotBound, "x"), requestHeaders: Self.dpopHeaders(unbound, proof: nil))
        #expect(notBound.headers["WWW-Authenticate"]?.hasPrefix("DPoP error=\"invalid_token\"") == true, "\(notBound)")
    }

    @Test("cnf: x5t#S256 needs the client certificate; a cnf of the wrong type is claim_type_mismatch")
    func certificateBinding() async throws {
        let validator = try Fixtures.validator()
        let certificate = Array("a DER certificate".utf8)
        let thumbprint = Base64URL.encode(DigestAlgorithm.sha256.hash(certificate))
        let token = try Self.token(boundTo: nil, cnf: .object(["x5t#S256": .string(thumbprint)]))
        let headers: HeaderFields = ["Authorization": "Bearer " + token]
        #expect(await Self.code(validator, headers) == "certificate_bound_token")
        await expectCode(.certificateBoundToken) { _ = try await validator.validate(bearerToken: token) }
        #expect(await Self.code(validator, headers, certificate: .der(Array("another certificate".utf8))) == "certificate_bound_token")
        #expect(await Self.code(validator, headers, certificate: .der(certificate)) == nil)
        let accessToken = try await validator.validate(method: "GET", url: Self.url, headers: headers, clientCertificate: .der(certificate)).token
        #expect(accessToken.confirmation == TokenConfirmation(jwkThumbprint: nil, certificateThumbprint: thumbprint))
        for cnf: JSONValue in [.string("x"), .object(["jkt": .integer(1)]), .object(["jkt": ""]), .null] {
            #expect(await Self.code(validator, ["Authorization": "Bearer " + (try Self.token(boundTo: nil, cnf: cnf))]) == "claim_type_mismatch", "\(cnf)")
        }
    }

    @Test("no credentials: Bearer and DPoP challenges; scope under DPoP: 403 DPoP insufficient_scope; malformed: 400")
    func challenges() async throws {
        let validator = try Fixtures.validator()
        #expect(await Self.code(validator, [:]) == "missing_bearer_token")
        #expect(await Self.code(validator, ["Authorization": "Basic abc"]) == "missing_bearer_token")
        let none = validator.refusal(for: OIDCError(.missingBearerToken, "x"), requestHeaders: [:], requiredScopes: ["read"])
        #expect(none.status == 401)
        #expect(
            none.headers.values(for: "WWW-Authenticate") == [
                "Bearer scope=\"read\"", "DPoP algs=\"ES256 ES384 ES512 Ed25519 EdDSA PS256 PS384 PS512 RS256 RS384 RS512\"",
            ],
            "\(none)")
        let key = try DPoPKey.generate()
        let token = try Self.token(boundTo: key, scope: "read")
        let headers = Self.dpopHeaders(token, proof: try key.proof(method: "GET", url: Self.url, accessToken: token, now: Fixtures.now))
        #expect(await Self.code(validator, headers, scopes: ["admin"]) == "insufficient_scope")
        let scope = validator.refusal(for: OIDCError(.insufficientScope, "lacks admin"), requestHeaders: headers, requiredScopes: ["admin"])
        #expect(scope.status == 403 && scope.headers["WWW-Authenticate"]?.hasPrefix("DPoP error=\"insufficient_scope\"") == true, "\(scope)")
        #expect(await Self.code(validator, ["Authorization": "DPoP a b"]) == "invalid_bearer_request")
        let malformed = validator.refusal(for: OIDCError(.invalidBearerRequest, "x"), requestHeaders: ["Authorization": "DPoP a b"])
        #expect(malformed.status == 400 && malformed.headers["WWW-Authenticate"]?.hasPrefix("DPoP error=\"invalid_request\"") == true)
    }

    @Test("round trip: the server's use_dpop_nonce challenge is recognised by the library's client, which retries once with the nonce")
    func nonceRoundTrip() async throws {
        let validator = try Fixtures.validator()
        let binding = DPoPBinding(key: try DPoPKey.generate(), clock: Fixtures.clock)
        let token = try Self.token(boundTo: binding.key)
        let server = ResourceServerTransport(validator: validator, nonce: "server-nonce-1")
        let response = try await binding.send(role: .resourceServer, accessToken: token, transport: server) {
            TransportRequest(method: "GET", url: Self.url, headers: ["Accept": "application/json"])
        }
        #expect(response.status == 200, "\(server.answers)")
        let answers = server.answers
        #expect(answers.count == 2)
        #expect(answers.first?.status == 401)
        #expect(answers.first?.headers["WWW-Authenticate"]?.hasPrefix("DPoP error=\"use_dpop_nonce\"") == true, "\(answers)")
        #expect(answers.first?.headers["DPoP-Nonce"] == "server-nonce-1")
        #expect(answers.first.map(DPoPBinding.isNonceChallenge) == true)
    }
}

/// A resource server on the other side of a transport: the one call, and its refusal as the response.
final class ResourceServerTransport: HTTPTransport, Sendable {
    let validator: AccessTokenValidator
    let nonce: String
    private let log = Locked([TransportResponse]())
    init(validator: AccessTokenValidator, nonce: String) {
        self.validator = validator
        self.nonce = nonce
    }
    var answers: [TransportResponse] { log.withLock { $0 } }

    func send(_ request: TransportRequest) async throws -> TransportResponse {
        let response: TransportResponse
        do {
            let presented = try await validator.validate(
                method: request.method.rawValue, url: request.url, headers: request.headers,
                dpopNonce: .required(nonce))
            response = TransportResponse(
                status: 200, headers: ["Content-Type": "application/json"], body: Array("{\"sub\":\"\(presented.token.subject)\"}".utf8))
        } catch let error as OIDCError {
            let refusal = validator.refusal(for: error, requestHeaders: request.headers, dpopNonce: nonce)
            response = TransportResponse(status: refusal.status, headers: refusal.headers, body: [])
        }
        log.withLock { $0.append(response) }
        return response
    }
}
