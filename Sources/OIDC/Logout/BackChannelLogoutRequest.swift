/// Reads the logout token out of a back-channel logout request's body.
///
/// The request is an `application/x-www-form-urlencoded` POST with one `logout_token` parameter,
/// as Back-Channel Logout 1.0 §2.5 defines.
public enum BackChannelLogoutRequest {
    /// The logout token of a request body.
    /// - Parameters:
    ///   - body: the raw body.
    ///   - contentType: the request's `Content-Type`, which must be the form type.
    /// - Throws: ``/OIDCCore/OIDCError`` `.invalidLogoutRequest`, category `invalidInput`, for another content type,
    ///   a malformed body, or zero or several `logout_token` parameters; the answer is 400, §2.8.
    public static func logoutToken(fromBody body: [UInt8], contentType: String?) throws -> String {
        guard MediaType.essence(of: contentType) == MediaType.form else {
            throw OIDCError(.invalidLogoutRequest, "the logout request is not application/x-www-form-urlencoded")
        }
        guard let text = String(validating: body, as: UTF8.self) else {
            throw OIDCError(.invalidLogoutRequest, "the logout request body is not UTF-8")
        }
        let pairs: [(name: String, value: String)]
        do {
            pairs = try FormURLEncoding.parse(text)
        } catch let error as OIDCError {
            throw OIDCError(.invalidLogoutRequest, "the logout request body is not form-encoded: \(error.reason)")
        }
        let tokens = pairs.filter { $0.name == "logout_token" }
        guard tokens.count == 1, let token = tokens.first?.value, !token.isEmpty else {
            throw OIDCError(.invalidLogoutRequest, "the logout request must carry exactly one logout_token (it has \(tokens.count))")
        }
        return token
    }
}
