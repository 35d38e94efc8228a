import JOSE

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension OIDCClient {
    /// Resolves the aggregated and distributed claims of `claims` (OpenID Connect Core §5.6.2) and never throws: a claim
    /// whose source cannot be used is returned in ``ResolvedClaims/unresolved`` with the typed reason.
    ///
    /// Each source's JWT (given inline as `JWT`, or fetched from its `endpoint` with its `access_token` as a Bearer token)
    /// must be signed by a claims provider `claimsProviders` trusts: its `iss` names the provider, whose keys verify it
    /// (asymmetric algorithms only, `alg: none` never); `exp`, `nbf` and `iat` are checked when present, and `aud`, when
    /// present, must contain the client id. Only the claims `_claim_names` assigns to a source are taken from it.
    ///
    /// An `endpoint` was chosen by the provider, so it is fetched only when `fetchPolicy` admits it (default: public hosts
    /// on port 443), over https (http only on loopback for a loopback issuer), without following redirects, answer
    /// bounded to 64 KiB and 10 s.
    /// - Parameters:
    ///   - claims: UserInfo's claims (``userInfo(_:)``) or an ID Token's (`login.idToken.claims.object`).
    ///   - claimsProviders: the claims providers whose keys are trusted, by issuer.
    ///   - fetchPolicy: the hosts distributed claims may be fetched from.
    public func resolveClaims(
        _ claims: JSONObject, trusting claimsProviders: ForeignTokenValidator, fetchPolicy: RemoteFetchPolicy = .publicHostsOnly
    ) async -> ResolvedClaims {
        var merged = claims
        merged["_claim_names"] = nil
        merged["_claim_sources"] = nil
        guard let namesValue = claims["_claim_names"] else {
            return ResolvedClaims(claims: merged, unresolved: [:])
        }
        var unresolved: [String: OIDCError] = [:]
        guard let names = namesValue.objectValue else {
            unresolved["_claim_names"] = OIDCError(.invalidClaimSource, "\"_claim_names\" is not a JSON object")
            return ResolvedClaims(claims: merged, unresolved: unresolved)
        }
        var bySource: [String: [String]] = [:]
        for member in names {
            let name = member.name
            guard let source = member.value.stringValue else {
                unresolved[name] = OIDCError(.invalidClaimSource, "\"_claim_names\" gives claim \(Self.quoted(name)) a source that is not a string")
                continue
            }
            bySource[source, default: []].append(name)
        }
        let sources = claims["_claim_sources"]?.objectValue
        var validator = claimsProviders
        validator.requiresExpiration = false
        for (sourceName, claimNames) in bySource.sorted(by: { $0.key < $1.key }) {
            do {
                guard let source = sources?[sourceName]?.objectValue else {
                    throw OIDCError(.invalidClaimSource, "\"_claim_sources\" has no object named \(Self.quoted(sourceName))")
                }
                let token = try await claimSourceToken(source, fetchPolicy: fetchPolicy)
                let verified = try await claimSourceClaims(token, validator: validator)
                for name in claimNames {
                    guard let value = verified[name] else {
                        unresolved[name] = OIDCError(.invalidClaimSource, "the claims source's JWT does not carry claim \(Self.quoted(name))")
                        continue
                    }
                    if merged[name] == nil { merged[name] = value }
                }
            } catch {
                let reason =
                    error as? OIDCError ?? OIDCError(.invalidClaimSource, "the claims source \(Self.quoted(sourceName)) cannot be used")
                for name in claimNames { unresolved[name] = reason }
            }
        }
        return ResolvedClaims(claims: merged, unresolved: unresolved)
    }

    /// A claim or source name as an error's reason quotes it: at most 64 characters.
    private static func quoted(_ name: String) -> String { "\"\(name.prefix(64))\"" }

    /// The JWT of an aggregated source (`JWT`), or the one fetched from a distributed source (`endpoint`, `access_token`).
    private func claimSourceToken(_ source: JSONObject, fetchPolicy: RemoteFetchPolicy) async throws -> String {
        if let jwt = source["JWT"] {
            guard let text = jwt.stringValue, source["endpoint"] == nil else {
                throw OIDCError(.invalidClaimSource, "an aggregated claims source's \"JWT\" must be a string, without \"endpoint\"")
            }
            return text
        }
        guard let endpointText = source["endpoint"]?.stringValue, let url = URL(string: endpointText), url.host != nil else {
            throw OIDCError(.invalidClaimSource, "a claims source has neither a \"JWT\" nor an absolute \"endpoint\" URL")
        }
        var accessToken: String?
        if let value = source["access_token"] {
            guard let text = value.stringValue else { throw OIDCError(.invalidClaimSource, "a claims source's \"access_token\" is not a string") }
            accessToken = text
        }
        let endpoint = ProviderEndpoint(rawValue: "_claim_sources.endpoint")
        var diagnostic: String?
        try await fetchPolicy.check(url, code: .claimSourceHostRefused, what: "the distributed claims endpoint", endpoint: endpoint, diagnostic: &diagnostic)
        var fetch = EndpointFetch(
            endpoint: endpoint, issuer: issuer, transportFailure: .claimSourceTransportFailed, invalidBody: .invalidClaimSource,
            maxBodyBytes: 64 * 1024)
        fetch.quotesBody = false
        var headers: HeaderFields = ["Accept": "application/jwt", "User-Agent": "swift-oidc-toolkit"]
        if let accessToken { headers["Authorization"] = "Bearer " + accessToken }
        let response = try await fetch.send(TransportRequest(url: url, headers: headers, timeout: 10), via: transport)
        guard let text = String(validating: Self.trimmed(response.body), as: UTF8.self), !text.isEmpty else {
            throw OIDCError(.invalidClaimSource, "the distributed claims endpoint answered with a body that is not a JWT", endpoint: endpoint)
        }
        return text
    }

    /// The claims of a source's JWT, once ``ForeignTokenValidator`` has verified it and `aud`, when present, names this client.
    private func claimSourceClaims(_ token: String, validator: ForeignTokenValidator) async throws -> JWTClaims {
        guard (try? CompactJWS(token)) != nil else {
            throw OIDCError(.invalidClaimSource, "the claims source's JWT is not a compact JWS")
        }
        let verified = try await validator.validate(token, audience: .anyAudience)
        if verified.claims["aud"] != nil, !verified.audience.contains(clientID) {
            throw OIDCError(.audienceMismatch, "the claims source's JWT has an \"aud\" without this client")
        }
        return verified.claims
    }
}
