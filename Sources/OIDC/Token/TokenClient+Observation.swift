import JOSE

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Revocation, UserInfo and the recording of every call for the client's observer, one ``OIDCEvent`` each.
extension TokenClient {
    /// Revokes a token at `endpoint` (RFC 7009); `hint` is `access_token` or `refresh_token`.
    /// Recorded as ``/OIDCCore/OIDCEvent/Kind/revocation``.
    /// - Throws: ``/OIDCCore/OIDCError`` `.insecureURL` before sending, `.oauthError`, `.transport`.
    public func revoke(_ token: String, hint: String? = nil, endpoint: URL) async throws {
        try await observer.observe(.revocation, origin: OIDCEvent.origin(of: endpoint)) {
            var parameters: [(name: String, value: String)] = [("token", token)]
            if let hint { parameters.append(("token_type_hint", hint)) }
            let response = try await post(parameters, to: endpoint, as: .revocation, proof: false)
            guard (200...299).contains(response.status) else {
                throw EndpointResponse.error(for: response, what: Self.what(.revocation)).naming(.revocation)
            }
        }
    }

    /// Calls UserInfo with the access token and returns its claims: `Bearer`, or with a DPoP binding `DPoP`
    /// with a proof bound to the token and the one nonce retry. Recorded as ``/OIDCCore/OIDCEvent/Kind/userInfo``.
    /// - Throws: ``/OIDCCore/OIDCError`` `.insecureURL` before sending, `.invalidToken` for a refused token, `.transport`.
    public func userInfo(accessToken: String, endpoint: URL) async throws -> JSONObject {
        try await observer.observe(.userInfo, origin: OIDCEvent.origin(of: endpoint)) {
            try userInfoObject(from: try await sendUserInfoRequest(accessToken: accessToken, endpoint: endpoint, accept: "application/json"))
        }
    }

    /// The UserInfo response as it came (JSON or JWT), for a caller that reads signed or encrypted
    /// answers; recorded as ``OIDCEvent/Kind/userInfo``.
    /// `tokenInFormBody`: the token goes in a form-encoded POST body (RFC 6750 §2.2) instead of the `Authorization`
    /// header; refused for a DPoP-bound client, whose proof binds the header (RFC 9449 §7.1).
    package func userInfoResponse(
        accessToken: String, endpoint: URL, accept: String, tokenInFormBody: Bool = false
    ) async throws -> TransportResponse {
        try await observer.observe(.userInfo, origin: OIDCEvent.origin(of: endpoint)) {
            try await sendUserInfoRequest(accessToken: accessToken, endpoint: endpoint, accept: accept, tokenInFormBody: tokenInFormBody)
        }
    }

    /// The accepted UserInfo response, whatever its form (JSON, or a JWT for `accept: application/jwt`).
    func sendUserInfoRequest(accessToken: String, endpoint: URL, accept: String, tokenInFormBody: Bool = false) async throws -> TransportResponse {
        var headers: HeaderFields = ["Accept": accept, "User-Agent": "swift-oidc-toolkit"]
        let userinfo = fetch(.userinfo)
        if tokenInFormBody {
            guard dpop == nil else {
                throw OIDCError(
                    .invalidRequestParameter,
                    "a DPoP-bound access token is sent in the Authorization header (RFC 9449 §7.1), not in a form body", endpoint: .userinfo)
            }
            // RFC 6750 §2.2: a POST with the token as the form parameter access_token.
            headers["Content-Type"] = "application/x-www-form-urlencoded"
            let body = Array(FormURLEncoding.encode([("access_token", accessToken)]).utf8)
            return try accepted(
                try await userinfo.send(
                    TransportRequest(method: .post, url: endpoint, headers: headers, body: .bytes(body), timeout: timeout),
                    via: transport), from: .userinfo)
        }
        guard let dpop else {
            headers["Authorization"] = "Bearer " + accessToken
            return try accepted(
                try await userinfo.send(
                    TransportRequest(method: "GET", url: endpoint, headers: headers, timeout: timeout),
                    via: transport), from: .userinfo)
        }
        let request = TransportRequest(method: "GET", url: endpoint, headers: headers, timeout: timeout)
        let response = try await dpop.send(
            role: .resourceServer, accessToken: accessToken, observer: observer,
            transport: FetchingTransport(fetch: userinfo, transport: transport)
        ) { request }
        return try accepted(response, from: .userinfo)
    }

    /// The body of a UserInfo response as a JSON object, or the typed error naming the endpoint.
    package func userInfoObject(from response: TransportResponse) throws -> JSONObject {
        try fetch(.userinfo).object(from: response)
    }

    /// `response` when its status is 200, else the typed error naming `name`.
    private func accepted(_ response: TransportResponse, from name: ProviderEndpoint) throws -> TransportResponse {
        guard response.status == 200 else { throw EndpointResponse.error(for: response, what: Self.what(name)).naming(name) }
        return response
    }

    /// Guarantees that UserInfo's `sub` equals the ID Token's (OpenID Connect Core §5.3.2): call it after ``userInfo(accessToken:endpoint:)``,
    /// which does not know the ID Token (``OIDCClient/userInfo(_:)`` checks it itself).
    /// - Throws: ``/OIDCCore/OIDCError`` `.userInfoSubjectMismatch`, also when either subject is missing.
    public static func checkUserInfoSubject(_ userInfo: JSONObject, idTokenSubject: String?) throws {
        guard let sub = userInfo["sub"]?.stringValue, let expected = idTokenSubject, ConstantTime.equals(sub, expected) else {
            throw OIDCError(.userInfoSubjectMismatch, "UserInfo's \"sub\" does not equal the ID Token's \"sub\"")
        }
    }

    /// One token request, recorded as ``OIDCEvent/Kind/tokenRequest`` with its `grant_type`. With `readsRetryAfter`
    /// (the polling grants), an HTTP 503 or 429 carrying `Retry-After` throws ``RetryAfter`` with the wait it asks for.
    package func requestTokens(
        _ parameters: [(name: String, value: String)], extra: [(name: String, value: String)] = [],
        headers: HeaderFields = [:], rule: TokenTypeRule = .dpopOnly, readsRetryAfter: Bool = false
    ) async throws -> TokenResponse {
        try await observer.observe(
            .tokenRequest, origin: OIDCEvent.origin(of: tokenEndpoint),
            grantType: observer == nil ? nil : Self.grantType(of: parameters)
        ) {
            try await sendTokenRequest(parameters, extra: extra, headers: headers, rule: rule, readsRetryAfter: readsRetryAfter)
        }
    }

    /// The `grant_type` of a token request's parameters (a grant name or URI, never a secret).
    static func grantType(of parameters: [(name: String, value: String)]) -> String? {
        parameters.first { $0.name == "grant_type" }?.value
    }

    /// Runs one POST to the provider's `name` endpoint; for an endpoint whose calls are not recorded otherwise
    /// (the token endpoint, revocation and UserInfo are) records a ``OIDCEvent/Kind/providerCall``: a success for a
    /// 2xx answer, else the failure's code (the registered OAuth code, or the endpoint error's).
    func observedCall(
        _ name: ProviderEndpoint, to endpoint: URL,
        _ call: () async throws -> TransportResponse
    ) async throws -> TransportResponse {
        guard let observer, ![.token, .revocation, .userinfo].contains(name) else { return try await call() }
        let clock = ContinuousClock()
        let start = clock.now
        let response: TransportResponse
        do {
            response = try await call()
        } catch {
            observer.record(
                OIDCEvent(
                    kind: .providerCall, outcome: .failure(code: Observation.code(of: error)),
                    origin: OIDCEvent.origin(of: endpoint), duration: clock.now - start))
            throw error
        }
        let outcome: OIDCEvent.Outcome =
            (200...299).contains(response.status)
            ? .success : .failure(code: Observation.code(of: EndpointResponse.error(for: response, what: name.rawValue)))
        observer.record(OIDCEvent(kind: .providerCall, outcome: outcome, origin: OIDCEvent.origin(of: endpoint), duration: clock.now - start))
        return response
    }
}
