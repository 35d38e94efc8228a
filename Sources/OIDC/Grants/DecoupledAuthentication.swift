import JOSE

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A decoupled login request: the client asks the provider to authenticate a user on another device
/// (Client-Initiated Backchannel Authentication, OpenID Connect CIBA Core 1.0 §7.1, poll mode).
///
/// `description` never shows the hints' values.
public struct DecoupledAuthenticationRequest: Sendable, CustomStringConvertible {
    /// How the user is identified: exactly one hint.
    public enum Hint: Sendable, Hashable {
        /// `login_hint` (glewlwyd wants a JSON object such as `{"username":"alice"}`).
        case loginHint(String)
        /// `id_token_hint`: an ID Token previously issued to this client.
        case idTokenHint(String)
        /// `login_hint_token`: a token carrying the hint.
        case loginHintToken(String)
    }

    /// Space-separated scopes; must contain `openid`.
    public var scope: String
    /// Who is asked.
    public var hint: Hint
    /// `binding_message`: shown on both devices.
    public var bindingMessage: String?
    /// `user_code`: a secret the user knows (when the provider supports it).
    public var userCode: String?
    /// `requested_expiry`, seconds.
    public var requestedExpiry: Int?
    /// `acr_values`, in order of preference.
    public var acrValues: [String]
    /// Further parameters (`claims`, `resource`, provider-specific ones).
    public var additionalParameters: [(name: String, value: String)]

    /// Creates a request.
    public init(
        scope: String = "openid", hint: Hint, bindingMessage: String? = nil, userCode: String? = nil, requestedExpiry: Int? = nil,
        acrValues: [String] = [], additionalParameters: [(name: String, value: String)] = []
    ) {
        self.scope = scope
        self.hint = hint
        self.bindingMessage = bindingMessage
        self.userCode = userCode
        self.requestedExpiry = requestedExpiry
        self.acrValues = acrValues
        self.additionalParameters = additionalParameters
    }

    static let standard: Set<String> = [
        "scope", "login_hint", "id_token_hint", "login_hint_token", "binding_message", "user_code",
        "requested_expiry", "acr_values", "client_notification_token", "grant_type", "auth_req_id",
    ]

    /// The form parameters (before client authentication).
    /// - Throws: ``OIDCError`` `.invalidDecoupledRequest` without `openid`, with a non-positive expiry,
    ///   or when an additional parameter would override a standard one.
    func parameters() throws -> [(name: String, value: String)] {
        guard scope.split(separator: " ").contains("openid") else {
            throw OIDCError(.invalidDecoupledRequest, "a CIBA request's scope must contain openid")
        }
        var form: [(name: String, value: String)] = [("scope", scope)]
        switch hint {
        case .loginHint(let value): form.append(("login_hint", value))
        case .idTokenHint(let value): form.append(("id_token_hint", value))
        case .loginHintToken(let value): form.append(("login_hint_token", value))
        }
        if let bindingMessage { form.append(("binding_message", bindingMessage)) }
        if let userCode { form.append(("user_code", userCode)) }
        if let requestedExpiry {
            guard requestedExpiry > 0 else { throw OIDCError(.invalidDecoupledRequest, "requested_expiry must be positive") }
            form.append(("requested_expiry", String(requestedExpiry)))
        }
        if !acrValues.isEmpty { form.append(("acr_values", acrValues.joined(separator: " "))) }
        for (name, _) in additionalParameters where Self.standard.contains(name) {
            throw OIDCError(.invalidDecoupledRequest, "additional parameter \"\(name)\" would override a standard one")
        }
        return form + additionalParameters
    }

    /// e.g. `DecoupledAuthenticationRequest(scope: "openid", hint: login_hint, binding_message: yes)`.
    public var description: String {
        let kind: String
        switch hint {
        case .loginHint: kind = "login_hint"
        case .idTokenHint: kind = "id_token_hint"
        case .loginHintToken: kind = "login_hint_token"
        }
        return "DecoupledAuthenticationRequest(scope: \"\(scope)\", hint: \(kind), binding_message: \(bindingMessage == nil ? "no" : "yes"))"
    }
}

/// A started decoupled login, as the backchannel authentication endpoint answered it (CIBA Core §7.3).
///
/// `Codable` so a waiting login can be resumed: the absolute deadline (``expiresAt``) and the
/// interval are encoded, so a login resumed from storage keeps its original deadline instead of
/// restarting `expires_in`. `description` and `dump` never show `auth_req_id`.
public struct DecoupledAuthenticationResponse: Sendable, Hashable, Codable, CustomStringConvertible, CustomReflectable {
    /// `auth_req_id`: identifies the request when polling (a credential: keep it server-side).
    package var authReqID: String
    /// `expires_in`, seconds, as the provider sent it.
    public var expiresIn: Int
    /// `interval`, seconds between polls (5 when absent).
    public var interval: Int?
    /// When the request expires: the client's clock when the answer arrived plus `expires_in`, set by
    /// ``OIDCClient/startBackchannelLogin(_:)`` and kept across encoding.
    /// Polling stops there. `nil` (a response made by hand, or stored by an older version): the
    /// deadline is `expires_in` from the start of polling.
    public var expiresAt: Date?

    /// Creates a response.
    /// - Parameters:
    ///   - authReqID: `auth_req_id`.
    ///   - expiresIn: `expires_in`, seconds.
    ///   - interval: `interval`, seconds.
    ///   - expiresAt: the absolute deadline (`nil`: `expires_in` from the start of polling).
    package init(authReqID: String, expiresIn: Int, interval: Int? = nil, expiresAt: Date? = nil) {
        self.authReqID = authReqID
        self.expiresIn = expiresIn
        self.interval = interval
        self.expiresAt = expiresAt
    }

    /// e.g. `DecoupledAuthenticationResponse(expires_in: 120, interval: 5)`.
    public var description: String { "DecoupledAuthenticationResponse(expires_in: \(expiresIn), interval: \(interval.map(String.init) ?? "default"))" }
    /// No children: `dump` shows nothing secret.
    public var customMirror: Mirror { Mirror(self, children: [:]) }
}

extension TokenClient {
    /// The CIBA grant type.
    package static let cibaGrantType = "urn:openid:params:grant-type:ciba"

    /// Starts a CIBA login: POSTs the request with the client's authentication to
    /// the `backchannel_authentication_endpoint` and returns `auth_req_id`.
    /// - Throws: ``OIDCError`` `.invalidDecoupledRequest`, the endpoint errors
    ///   (`.oauthError` with the provider's code ...), `.invalidDecoupledResponse`.
    package func startBackchannelAuthentication(_ request: DecoupledAuthenticationRequest, endpoint: URL) async throws -> DecoupledAuthenticationResponse {
        let response = try await post(try request.parameters(), to: endpoint, as: .backchannelAuthentication)
        let object = try answer(response, from: .backchannelAuthentication)
        guard let id = object["auth_req_id"]?.stringValue, !id.isEmpty else {
            throw OIDCError(.invalidDecoupledResponse, "the backchannel authentication response has no string \"auth_req_id\"", httpStatus: response.status)
        }
        let expiresIn = try DecoupledPolling.positiveInteger(object, "expires_in", what: "backchannel authentication", status: response.status)
        return DecoupledAuthenticationResponse(
            authReqID: id, expiresIn: expiresIn,
            interval: try DecoupledPolling.optionalInterval(object, what: "backchannel authentication", status: response.status),
            expiresAt: clock().addingTimeInterval(TimeInterval(expiresIn)))
    }

    /// Polls the token endpoint for a CIBA login until the user decides, the
    /// request expires (at `started.expiresAt`, else `expires_in` from now), or the task is cancelled
    /// (see ``DecoupledOutcome``).
    /// - Throws: ``OIDCError`` for any error other than pending/slow-down/denied/expired; `CancellationError`.
    package func pollBackchannelAuthentication(
        _ started: DecoupledAuthenticationResponse,
        sleeper: PollingSleeper = .task
    ) async throws -> DecoupledOutcome {
        try await DecoupledPolling.poll(
            self, parameters: [("grant_type", Self.cibaGrantType), ("auth_req_id", started.authReqID)],
            interval: started.interval,
            deadline: started.expiresAt ?? clock().addingTimeInterval(TimeInterval(started.expiresIn)), sleeper: sleeper)
    }
}
