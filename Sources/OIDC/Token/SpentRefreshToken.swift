import JOSE

/// The one rule for a refresh answer that a check of ours refuses (token type, ID Token, form),
/// used by `TokenClient`, `OIDCClient` and the session alike.
///
/// A provider that rotates refresh tokens has already spent the one we sent when it answers. If
/// we then refuse its answer, keeping our tokens would mean replaying that spent refresh token on
/// the next refresh — which a provider with reuse detection (RFC 9700 §4.14.2) answers by revoking
/// the whole token family. So: when the answer carries a refresh token other than the one sent,
/// the refusal becomes ``OIDCError/Code/refreshTokenSpent``; when it carries none or the same one,
/// the grant is intact and the check's own error is rethrown unchanged (tokens kept).
package enum SpentRefreshToken {
    /// Runs `check` on the answer to a refresh that sent `sentRefreshToken` (`nil`: not a refresh,
    /// errors pass through); a refusal is turned into `refresh_token_spent` when `answerRefreshToken`
    /// shows the provider rotated the token.
    package static func checking<T>(
        answerRefreshToken: @autoclosure () -> String?, sent sentRefreshToken: String?,
        _ check: () async throws -> T
    ) async throws -> T {
        do {
            return try await check()
        } catch {
            guard let sentRefreshToken, let rotated = answerRefreshToken(), !ConstantTime.equals(rotated, sentRefreshToken) else {
                throw error
            }
            throw spent(because: error)
        }
    }

    /// `refresh_token_spent` naming why the answer was refused (never a token).
    package static func spent(because error: any Error) -> OIDCError {
        let checkError = error as? OIDCError
        let why = checkError.map { "\($0.code.rawValue): \($0.reason)" } ?? "\(error)"
        return OIDCError(
            .refreshTokenSpent,
            "the provider rotated the refresh token but its answer was refused (\(why)); "
                + "the refresh token sent is spent and the new one is not used", joseError: checkError?.joseError)
    }

    /// The refresh token a token request sends, when it is a `refresh_token` grant.
    package static func sent(in parameters: [(name: String, value: String)]) -> String? {
        guard parameters.contains(where: { $0.name == "grant_type" && $0.value == "refresh_token" }) else { return nil }
        return parameters.first { $0.name == "refresh_token" }?.value
    }
}
