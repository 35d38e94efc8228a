import Foundation
import OIDCResourceServer

extension AccessTokenValidator {
    /// `token` presented as `Bearer` through the validator's one path (the tests' shorthand; the library has no second path).
    func validate(bearerToken token: String, requiredScopes: Set<String> = []) async throws -> AccessToken {
        try await validate(
            method: "GET", url: URL(fileURLWithPath: "/"), headers: ["Authorization": "Bearer " + token],
            requiredScopes: requiredScopes
        ).token
    }
}
