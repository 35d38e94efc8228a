#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension OIDCClient {
    /// Starts a CIBA login (OpenID Connect CIBA Core 1.0, poll mode): POSTs `request` with the client's
    /// authentication (and a DPoP proof when configured) to the provider's `backchannel_authentication_endpoint`.
    /// Keep the answer server-side (its `auth_req_id` is a credential; it is `Codable` to survive a restart).
    /// - Throws: ``/OIDCCore/OIDCError`` `.endpointNotAdvertised`, `.invalidDecoupledRequest`, the endpoint's errors
    ///   (`.oauthError` with the provider's code), `.invalidDecoupledResponse`.
    public func startBackchannelLogin(_ request: DecoupledAuthenticationRequest) async throws -> DecoupledAuthenticationResponse {
        try await tokenClient.startBackchannelAuthentication(
            request, endpoint: try endpoint(metadata.backchannelAuthenticationEndpoint, "backchannel_authentication_endpoint"))
    }

    /// Polls for the user's decision on a CIBA login (interval, `slow_down` +5 s, `authorization_pending`,
    /// until `expires_in`; cancel the task to stop). On approval, the `token_type` must be one the client uses
    /// and the ID Token, which CIBA requires, is validated (signature, `iss`, `aud`/`azp`, times, no nonce,
    /// `at_hash` when present).
    /// - Throws: ``/OIDCCore/OIDCError``: token-endpoint codes other than pending/slow-down/denied/expired,
    ///   `.unsupportedTokenType`, `.missingIDToken`, ID Token codes; `CancellationError`.
    public func finishBackchannelLogin(
        _ started: DecoupledAuthenticationResponse,
        sleeper: PollingSleeper = .task
    ) async throws -> DecoupledLogin {
        let outcome = try await tokenClient.pollBackchannelAuthentication(started, sleeper: sleeper)
        return try await checked(outcome, idTokenRequired: true)
    }

    /// Starts the device authorization grant (RFC 8628 §3.1) at the provider's `device_authorization_endpoint`:
    /// show the user `verificationURI` (or `verificationURIComplete`) and `userCode`.
    /// - Parameters:
    ///   - scopes: the scopes asked for (`openid` for an ID Token).
    ///   - additionalParameters: further form members (never `scope`, `client_id`, `grant_type`, `device_code`).
    /// - Throws: ``/OIDCCore/OIDCError`` `.endpointNotAdvertised`, the endpoint's errors, `.invalidDecoupledResponse`.
    public func startDeviceLogin(
        scopes: [String] = ["openid"],
        additionalParameters: [(name: String, value: String)] = []
    ) async throws -> DeviceAuthorizationResponse {
        try await tokenClient.requestDeviceAuthorization(
            scope: scopes.isEmpty ? nil : scopes.joined(separator: " "), additionalParameters: additionalParameters,
            endpoint: try endpoint(metadata.deviceAuthorizationEndpoint, "device_authorization_endpoint"))
    }

    /// Polls for the user's decision on a device login (RFC 8628 §3.4, §3.5); on approval the `token_type`
    /// is checked and an ID Token, when the provider returns one, is validated as for ``finishBackchannelLogin(_:sleeper:)``.
    /// - Throws: ``/OIDCCore/OIDCError``: as ``finishBackchannelLogin(_:sleeper:)``, but a missing ID Token is not an error.
    public func finishDeviceLogin(_ started: DeviceAuthorizationResponse, sleeper: PollingSleeper = .task) async throws -> DecoupledLogin {
        let outcome = try await tokenClient.pollDeviceAuthorization(started, sleeper: sleeper)
        return try await checked(outcome, idTokenRequired: false)
    }

    /// The client's checks on a decoupled grant: token type, then the ID Token (no nonce was sent).
    private func checked(_ outcome: DecoupledOutcome, idTokenRequired: Bool) async throws -> DecoupledLogin {
        switch outcome {
        case .denied(let error): return .denied(error)
        case .expired(let error): return .expired(error)
        case .granted(var tokens):
            try requireAcceptedTokenType(tokens)
            guard let text = tokens.idToken else {
                if idTokenRequired { throw OIDCError(.missingIDToken, "the token response has no id_token (CIBA Core §10.1.1)") }
                return .loggedIn(tokens: tokens, idToken: nil)
            }
            let idToken = try await validator.validate(
                text, expecting: IDTokenExpectations(flow: .tokenEndpoint(accessToken: tokens.accessToken), nonce: .noNonceSent))
            tokens.idToken = idToken.compact  // the signed ID Token (decrypted, when it arrived encrypted)
            return .loggedIn(tokens: tokens, idToken: idToken)
        }
    }
}
