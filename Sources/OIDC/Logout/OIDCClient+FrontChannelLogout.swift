import JOSE

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension OIDCClient {
    /// Reads a front-channel logout request (OpenID Connect Front-Channel Logout 1.0 §2) and returns its `sid` only when
    /// its `iss` is this client's issuer: the application then ends the sessions whose ID Token carried that `sid` from
    /// this issuer, and no other.
    ///
    /// The client registers `frontchannel_logout_uri` with `frontchannel_logout_session_required: true`, so both
    /// parameters are required. The answer to the browser should carry `Cache-Control: no-cache, no-store` (§2).
    /// - Parameter query: the request's query (without `?`), percent-encoded as received.
    /// - Returns: the session id (`sid`) to end.
    /// - Throws: ``/OIDCCore/OIDCError`` `.invalidFrontChannelLogout` (no `iss` or `sid`, one given twice, bad encoding),
    ///   `.frontChannelLogoutIssuerMismatch`.
    public func frontChannelLogoutSessionID(_ query: String) throws -> String {
        let parameters: [(name: String, value: String)]
        do {
            parameters = try FormURLEncoding.parse(query)
        } catch {
            throw OIDCError(.invalidFrontChannelLogout, "the front-channel logout request is not valid form encoding")
        }
        func single(_ name: String) throws -> String {
            let values = parameters.filter { $0.name == name }.map(\.value)
            guard values.count == 1, let value = values.first, !value.isEmpty else {
                throw OIDCError(.invalidFrontChannelLogout, "the front-channel logout request must carry \(name) exactly once")
            }
            return value
        }
        let iss = try single("iss"), sid = try single("sid")
        guard iss == issuer else {
            throw OIDCError(.frontChannelLogoutIssuerMismatch, "the front-channel logout request's iss is not this client's issuer")
        }
        return sid
    }
}
