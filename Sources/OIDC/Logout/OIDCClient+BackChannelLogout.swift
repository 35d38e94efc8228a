import JOSE

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension OIDCClient.Configuration {
    /// How an ``OIDCClient`` checks the back-channel logout tokens its provider sends; every default is the safe one.
    public struct LogoutTokens: Sendable {
        /// Where each token's `jti` is recorded, so a token is accepted once.
        ///
        /// Default: an ``/OIDCCore/InMemoryReplayCache`` of this configuration. Replicas share one cache,
        /// such as `OIDCPostgres`'s `PostgresReplayCache`.
        public var replays: any ReplayCache = InMemoryReplayCache()
        /// The oldest a token may be, in seconds after its `iat`; default 600, at most one day.
        public var maximumAge: TimeInterval = 600
        /// Which `typ` header values are accepted; default `logout+jwt` when present.
        public var typeRule: LogoutTokenValidator.TypeRule = .logoutJWTWhenPresent
        /// Whether `exp` must be present; default required.
        public var expirationRule: LogoutTokenValidator.ExpirationRule = .required

        /// The defaults: an in-memory replay cache, ten minutes, the final specification's `typ` and `exp` rules.
        public init() {}
    }
}

/// What ``OIDCClient/backChannelLogout(body:contentType:)`` decided: the HTTP response to send, and the token.
///
/// Back-Channel Logout 1.0 §2.8 asks for 200 when the logout token is valid and 400 otherwise,
/// with an RFC 6749 §5.2 error body. Both carry `Cache-Control: no-store`.
public struct BackChannelLogoutResult: Sendable {
    /// The response to send to the provider: 200, or 400 with a JSON error body.
    public let response: TransportResponse
    /// The validated token, whose sessions the application now ends; `nil` when refused.
    public let token: LogoutToken?
    /// Why the request was refused; `nil` when accepted. Its reason is for your logs, not for the response.
    public let error: OIDCError?
}

extension OIDCClient {
    /// Validates a back-channel logout token with the client's own key cache and replay cache.
    ///
    /// The rules are those of ``LogoutTokenValidator``, with the provider's keys from ``providerKeys``,
    /// the issuer, client id, clock, leeway and observer of this client, the ID Token algorithms and
    /// ``Configuration/logoutTokens``.
    /// - Parameter token: the logout token, as ``BackChannelLogoutRequest/logoutToken(fromBody:contentType:)`` reads it.
    /// - Returns: the validated token; its `jti` is recorded, so the same token is refused next time.
    /// - Throws: ``/OIDCCore/OIDCError`` of category `invalidInput`, such as `.invalidSignature`, `.audienceMismatch` or
    ///   `.replayedLogoutToken`; what the replay cache throws when it cannot answer.
    public func validateLogoutToken(_ token: String) async throws -> LogoutToken {
        try await logoutTokenValidator.validate(token)
    }

    /// Answers a whole back-channel logout request: reads the logout token from the form body and validates it.
    ///
    /// Never throws: a refused request is a 400 response to send, with the error beside it.
    /// - Parameters:
    ///   - body: the request body.
    ///   - contentType: the request's `Content-Type`, which must be `application/x-www-form-urlencoded`.
    /// - Returns: the response to send, and the validated token when it is 200.
    public func backChannelLogout(body: [UInt8], contentType: String?) async -> BackChannelLogoutResult {
        do {
            let text = try BackChannelLogoutRequest.logoutToken(fromBody: body, contentType: contentType)
            let token = try await validateLogoutToken(text)
            return BackChannelLogoutResult(
                response: TransportResponse(status: 200, headers: ["Cache-Control": "no-store"]),
                token: token, error: nil)
        } catch {
            let refusal = error as? OIDCError ?? OIDCError(.invalidLogoutToken, "the logout token could not be checked")
            let body: JSONValue = .object(["error": .string("invalid_request"), "error_description": .string(refusal.code.rawValue)])
            let response = TransportResponse(
                status: 400, headers: ["Content-Type": "application/json", "Cache-Control": "no-store"],
                body: Array(body.jsonString(sortedKeys: true).utf8))
            return BackChannelLogoutResult(response: response, token: nil, error: refusal)
        }
    }

    /// The logout token validator of this client: its issuer, id, keys, clock, leeway and observer.
    var logoutTokenValidator: LogoutTokenValidator {
        let rules = configuration.logoutTokens
        return LogoutTokenValidator(
            issuer: issuer, clientID: clientID, keys: providerKeys, replays: rules.replays,
            maximumAge: rules.maximumAge, allowedAlgorithms: validator.configuration.effectiveAlgorithms,
            leeway: configuration.leeway, typeRule: rules.typeRule, expirationRule: rules.expirationRule,
            clock: configuration.clock, observer: configuration.observer)
    }
}
