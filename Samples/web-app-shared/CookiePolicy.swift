import Foundation

/// The app's two cookies, both `HttpOnly`, opaque (random handles into server-side stores).
///
/// - `hbapp_login`: the pending login, sent back only to `/callback`, for 10 minutes.
/// - `hbapp_session`: the logged-in session, `SameSite=Lax`.
///
/// `Secure` always, except when `--base-url` is plain http on a loopback host (a browser drops a
/// `Secure` cookie set over http there). With `--response-mode form_post` the provider POSTs the
/// answer cross-site, so the login cookie must be `SameSite=None; Secure` (a `Lax` cookie is not
/// sent on a cross-site POST). `None` without `Secure` is refused by browsers, so on a loopback
/// http base URL the login cookie stays `SameSite=Lax`: it still comes back because a test
/// provider on the same loopback host is same-site (a site ignores the port).
struct CookiePolicy: Sendable {
    static let login = "hbapp_login"
    static let session = "hbapp_session"

    let secure: Bool
    let formPost: Bool

    func loginCookie(_ handle: String) -> String {
        let sameSite = formPost && secure ? "None" : "Lax"
        return cookie(Self.login, handle, path: "/callback", maxAge: 600, sameSite: sameSite)
    }

    func sessionCookie(_ handle: String, maxAge: Int) -> String {
        cookie(Self.session, handle, path: "/", maxAge: maxAge, sameSite: "Lax")
    }

    func clearLogin() -> String {
        cookie(Self.login, "", path: "/callback", maxAge: 0, sameSite: formPost && secure ? "None" : "Lax")
    }

    func clearSession() -> String { cookie(Self.session, "", path: "/", maxAge: 0, sameSite: "Lax") }

    private func cookie(_ name: String, _ value: String, path: String, maxAge: Int, sameSite: String) -> String {
        var parts = ["\(name)=\(value)", "Path=\(path)", "Max-Age=\(maxAge)", "HttpOnly", "SameSite=\(sameSite)"]
        if secure { parts.append("Secure") }
        return parts.joined(separator: "; ")
    }
}
