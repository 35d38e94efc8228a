#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import JOSE

/// The token client's calls, each recorded for ``TokenClient/observer`` (when set) as one ``OIDCEvent``.
extension TokenClient {
    /// Revokes a token at `endpoint` (RFC 7009); `hint` is `access_token` or `refresh_token`.
    /// Recorded as ``OIDCEvent/Kind/revocation``.
    public func revoke(_ token: String, hint: String? = nil, endpoint: URL) async throws {
        try await observer.observe(.revocation, origin: OIDCEvent.origin(of: endpoint)) {
            try await sendRevocation(token, hint: hint, endpoint: endpoint)
        }
    }

    /// Calls UserInfo with the access token and returns its claims: `Bearer`, or with a ``dpop`` binding
    /// `DPoP` with a proof (`ath` bound to the token) and the one nonce retry. Recorded as ``OIDCEvent/Kind/userInfo``.
    public func userInfo(accessToken: String, endpoint: URL) async throws -> JSONObject {
        try await observer.observe(.userInfo, origin: OIDCEvent.origin(of: endpoint)) {
            try await sendUserInfo(accessToken: accessToken, endpoint: endpoint)
        }
    }

    /// The UserInfo response as it came (JSON or JWT), for a caller that reads signed or encrypted
    /// answers; recorded as ``OIDCEvent/Kind/userInfo``.
    package func userInfoResponse(accessToken: String, endpoint: URL, accept: String) async throws -> TransportResponse {
        try await observer.observe(.userInfo, origin: OIDCEvent.origin(of: endpoint)) {
            try await sendUserInfoRequest(accessToken: accessToken, endpoint: endpoint, accept: accept)
        }
    }

    /// One token request, recorded as ``OIDCEvent/Kind/tokenRequest`` with its `grant_type`.
    func requestTokens(_ parameters: [(name: String, value: String)], extra: [(name: String, value: String)],
                       headers: HeaderFields) async throws -> TokenResponse {
        try await observer.observe(.tokenRequest, origin: OIDCEvent.origin(of: tokenEndpoint),
                                   grantType: observer == nil ? nil : Self.grantType(of: parameters)) {
            try await sendTokenRequest(parameters, extra: extra, headers: headers)
        }
    }

    /// The `grant_type` of a token request's parameters (a grant name or URI, never a secret).
    static func grantType(of parameters: [(name: String, value: String)]) -> String? {
        parameters.first { $0.name == "grant_type" }?.value
    }
}
