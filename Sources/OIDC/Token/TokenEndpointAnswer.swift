import JOSE

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension TokenResponse {
    /// Reads a token endpoint's successful JSON answer (HTTP `status`) to a request that sent
    /// `parameters`, then runs the caller's `check` on it (its token-type rule): the one reading
    /// step of `TokenClient`. A form error names the token endpoint and
    /// the status; a refusal of an answer to a refresh that rotated the refresh token is
    /// `refresh_token_spent` (``SpentRefreshToken``).
    package static func tokenEndpointAnswer(
        _ object: JSONObject, status: Int, receivedAt: Date,
        sent parameters: [(name: String, value: String)],
        check: (TokenResponse) throws -> Void
    ) async throws -> TokenResponse {
        try await SpentRefreshToken.checking(
            answerRefreshToken: object["refresh_token"]?.stringValue,
            sent: SpentRefreshToken.sent(in: parameters)
        ) {
            let tokens: TokenResponse
            do {
                tokens = try TokenResponse(json: object, receivedAt: receivedAt)
            } catch let error as OIDCError {
                throw OIDCError(error.code, error.reason, httpStatus: status, endpoint: .token)
            }
            try check(tokens)
            return tokens
        }
    }
}
