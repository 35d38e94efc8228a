import JOSE

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension OIDCClient {
    /// Reads a third-party-initiated login request (OpenID Connect Core §4) into the ``LoginRequest`` to start, accepting
    /// it only when its `iss` is this client's issuer and its `target_link_uri`, when present, is one the application allows.
    ///
    /// The login endpoint (the registered `initiate_login_uri`) receives `iss`, optionally `login_hint` and
    /// `target_link_uri`, as a GET query or a POST form; hand either here as it came. The request carries `login_hint` on.
    /// `target_link_uri` is returned, never followed: send the user there after ``finishLogin(_:callback:)`` succeeds.
    /// Other parameters are ignored.
    /// - Parameters:
    ///   - form: the query (without `?`) or the `application/x-www-form-urlencoded` body, percent-encoded as received.
    ///   - redirectURI: the redirect URI of the login to start.
    ///   - scopes: the scopes of the login to start.
    ///   - allowedTargets: the places `target_link_uri` may point to: a target is allowed when its scheme, host and port are
    ///     an entry's and its path is the entry's path or below it (an entry `https://rp.example.com/app` allows
    ///     `https://rp.example.com/app/x`, not `https://rp.example.com/apple`). Empty: every `target_link_uri` is refused.
    /// - Returns: the login request and the checked `target_link_uri`, `nil` when none was given.
    /// - Throws: ``/OIDCCore/OIDCError`` `.invalidLoginInitiation` (no `iss`, another issuer, a parameter given twice, bad
    ///   encoding), `.loginTargetNotAllowed`.
    public func thirdPartyLoginRequest(
        _ form: String, redirectURI: URL, scopes: [String] = ["openid"], allowedTargets: [URL] = []
    ) throws -> (login: LoginRequest, targetLinkURI: URL?) {
        let parameters: [(name: String, value: String)]
        do {
            parameters = try FormURLEncoding.parse(form)
        } catch {
            throw OIDCError(.invalidLoginInitiation, "the login initiation request is not valid form encoding")
        }
        var values: [String: String] = [:]
        for parameter in parameters where ["iss", "login_hint", "target_link_uri"].contains(parameter.name) {
            guard values[parameter.name] == nil else {
                throw OIDCError(.invalidLoginInitiation, "the login initiation request carries \(parameter.name) more than once")
            }
            values[parameter.name] = parameter.value
        }
        guard let iss = values["iss"], !iss.isEmpty else {
            throw OIDCError(.invalidLoginInitiation, "the login initiation request has no iss (OpenID Connect Core §4)")
        }
        guard iss == issuer else {
            throw OIDCError(.invalidLoginInitiation, "the login initiation request's iss is not this client's issuer")
        }
        var target: URL?
        if let text = values["target_link_uri"], !text.isEmpty {
            guard let url = URL(string: text), Self.isAllowedTarget(url, allowedTargets) else {
                throw OIDCError(.loginTargetNotAllowed, "the login initiation request's target_link_uri is not an allowed target")
            }
            target = url
        }
        var login = LoginRequest(redirectURI: redirectURI, scopes: scopes)
        if let hint = values["login_hint"], !hint.isEmpty { login.loginHint = hint }
        return (login, target)
    }

    /// Whether `url` is at or below one of `allowed`: same scheme, host and port, path equal or under the entry's at a
    /// `/`, no dot segments, no user information or fragment.
    static func isAllowedTarget(_ url: URL, _ allowed: [URL]) -> Bool {
        guard let target = URLComponents(url: url, resolvingAgainstBaseURL: false), target.fragment == nil, target.user == nil,
            target.password == nil, let scheme = target.scheme?.lowercased(), scheme == "https" || scheme == "http"
        else { return false }
        let path = target.percentEncodedPath.isEmpty ? "/" : target.percentEncodedPath
        let segments = path.split(separator: "/", omittingEmptySubsequences: false)
        guard !segments.contains(where: { [".", "..", "%2e", "%2E", ".%2e", "%2e.", "%2e%2e", "%2E%2E", ".%2E", "%2E."].contains($0) }) else {
            return false
        }
        func port(_ components: URLComponents) -> Int? {
            components.port ?? (components.scheme?.lowercased() == "https" ? 443 : components.scheme?.lowercased() == "http" ? 80 : nil)
        }
        return allowed.contains { entry in
            guard let base = URLComponents(url: entry, resolvingAgainstBaseURL: false), base.scheme?.lowercased() == scheme,
                let host = target.host?.lowercased(), !host.isEmpty, base.host?.lowercased() == host, port(base) == port(target)
            else { return false }
            let prefix = base.percentEncodedPath.isEmpty ? "/" : base.percentEncodedPath
            return path == prefix || path.hasPrefix(prefix.hasSuffix("/") ? prefix : prefix + "/")
        }
    }
}
