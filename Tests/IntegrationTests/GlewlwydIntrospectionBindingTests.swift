import Foundation
import JOSE
import OIDC
import OIDCNetworking
import OIDCResourceServer
import Testing

extension GlewlwydSerial {
    /// RFC 9449 §6.2 on the introspection path: glewlwyd 2.7.5 answers the introspection of a DPoP-bound token
    /// with `cnf.jkt`; `TokenIntrospector` enforces it (it was ignored: the token passed as plain Bearer).
    @Suite("glewlwyd: introspection of a DPoP-bound token (cnf.jkt)", .enabled(if: Glewlwyd.isRunning, "GLEWLWYD_ISSUER is not set"), .serialized)
    struct GlewlwydIntrospectionBindingTests {
        @Test("the answer's cnf.jkt: refused as Bearer, accepted with a proof of that key, refused with another key's")
        func dpopBoundIntrospected() async throws {
            let metadata = try await Glewlwyd.metadata()
            let resource = try Glewlwyd.resource
            let binding = DPoPBinding(key: try DPoPKey.generate())
            // glewlwyd lets a client introspect only its own tokens, with client_secret_basic: the token is svc-secret's.
            let client = try TokenClient(
                tokenEndpoint: try #require(metadata.tokenEndpoint), issuer: metadata.issuer,
                authentication: try Glewlwyd.authentication("SECRET"), transport: Glewlwyd.transport, dpop: binding)
            let tokens = try await client.requestTokens(
                [
                    ("grant_type", "client_credentials"), ("scope", "api.read"),
                    ("resource", resource.absoluteString),
                ],
                rule: .strict)
            #expect(tokens.tokenType.lowercased() == "dpop")
            let token = tokens.accessToken
            let introspector = try TokenIntrospector(
                endpoint: try #require(metadata.introspectionEndpoint), issuer: metadata.issuer,
                authentication: try Glewlwyd.authentication("SECRET"), transport: Glewlwyd.transport,
                audience: .contains(resource.absoluteString))
            // What glewlwyd says: active, bound to the key.
            let answer = try #require(try await introspector.introspect(token, hint: "access_token").activeToken)
            #expect(try answer.confirmation?.jwkThumbprint == binding.key.thumbprint, "\(answer.members)")

            func code(_ body: () async throws -> Void) async -> String? {
                do {
                    try await body()
                    return nil
                } catch let error as OIDCError {
                    return error.code.rawValue
                } catch {
                    return "unexpected \(error)"
                }
            }
            let api = resource.appendingPathComponent("items")
            #expect(await code { _ = try await introspector.validate(token, requiredScopes: ["api.read"]) } == "dpop_bound_token_as_bearer")
            #expect(
                await code {
                    _ = try await introspector.validate(method: "GET", url: api, headers: ["Authorization": "Bearer " + token])
                } == "dpop_bound_token_as_bearer")
            let proof = try binding.key.proof(method: "GET", url: api, accessToken: token, now: Date())
            let accepted = try await introspector.validate(
                method: "GET", url: api, headers: ["Authorization": "DPoP " + token, "DPoP": proof],
                requiredScopes: ["api.read"])
            #expect(accepted.scheme == .dpop && accepted.proof?.thumbprint == binding.key.thumbprint)
            #expect(accepted.introspection.clientID == (try Glewlwyd.value("GLEWLWYD_SECRET_CLIENT_ID")))
            let attacker = try DPoPKey.generate().proof(method: "GET", url: api, accessToken: token, now: Date())
            #expect(
                await code {
                    _ = try await introspector.validate(method: "GET", url: api, headers: ["Authorization": "DPoP " + token, "DPoP": attacker])
                } == "dpop_proof_jkt")
        }
    }
}
