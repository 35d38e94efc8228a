import JOSE

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The device authorization endpoint's answer (RFC 8628 §3.2). `Codable` so a
/// waiting device can be resumed: the absolute deadline (``expiresAt``) and the interval are
/// encoded, so a login resumed from storage keeps its original deadline instead of restarting
/// `expires_in`. `description` and `dump` never show `device_code`.
public struct DeviceAuthorizationResponse: Sendable, Hashable, Codable, CustomStringConvertible, CustomReflectable {
    /// `device_code`: the device's credential for polling.
    package var deviceCode: String
    /// `user_code`: what the user types at the verification page.
    public var userCode: String
    /// `verification_uri`: the page the user opens.
    public var verificationURI: String
    /// `verification_uri_complete`: the page with the user code already in it.
    public var verificationURIComplete: String?
    /// `expires_in`, seconds.
    public var expiresIn: Int
    /// `interval`, seconds between polls (5 when absent).
    public var interval: Int?
    /// When the device code expires: the client's clock when the answer arrived plus `expires_in`, set by
    /// ``OIDCClient/startDeviceLogin(scopes:additionalParameters:)`` and kept across
    /// encoding. Polling stops there. `nil` (a response made by hand, or stored by an older version): the
    /// deadline is `expires_in` from the start of polling.
    public var expiresAt: Date?

    /// Creates a response.
    /// - Parameters:
    ///   - deviceCode: `device_code`.
    ///   - userCode: `user_code`.
    ///   - verificationURI: `verification_uri`.
    ///   - verificationURIComplete: `verification_uri_complete`.
    ///   - expiresIn: `expires_in`, seconds.
    ///   - interval: `interval`, seconds.
    ///   - expiresAt: the absolute deadline (`nil`: `expires_in` from the start of polling).
    package init(
        deviceCode: String, userCode: String, verificationURI: String, verificationURIComplete: String? = nil, expiresIn: Int,
        interval: Int? = nil, expiresAt: Date? = nil
    ) {
        self.deviceCode = deviceCode
        self.userCode = userCode
        self.verificationURI = verificationURI
        self.verificationURIComplete = verificationURIComplete
        self.expiresIn = expiresIn
        self.interval = interval
        self.expiresAt = expiresAt
    }

    /// The user-facing part: verification URI and user code (shown to the user anyway), never the device code.
    public var description: String { "DeviceAuthorizationResponse(verification_uri: \(verificationURI), user_code: \(userCode), expires_in: \(expiresIn))" }
    /// No children: `dump` shows nothing secret.
    public var customMirror: Mirror { Mirror(self, children: [:]) }
}

extension TokenClient {
    /// The device grant type (RFC 8628 §3.4).
    package static let deviceCodeGrantType = "urn:ietf:params:oauth:grant-type:device_code"

    /// Starts the device authorization grant (RFC 8628 §3.1).
    /// - Throws: ``OIDCError`` the endpoint errors (`.oauthError` ...), `.invalidDecoupledResponse`
    ///   (missing `device_code`, `user_code`, `verification_uri` or `expires_in`).
    package func requestDeviceAuthorization(
        scope: String?, additionalParameters: [(name: String, value: String)] = [],
        endpoint: URL
    ) async throws -> DeviceAuthorizationResponse {
        var form: [(name: String, value: String)] = []
        if let scope { form.append(("scope", scope)) }
        for (name, _) in additionalParameters where ["scope", "client_id", "grant_type", "device_code"].contains(name) {
            throw OIDCError(.invalidDecoupledRequest, "additional parameter \"\(name)\" would override a standard one")
        }
        let response = try await post(form + additionalParameters, to: endpoint, as: .deviceAuthorization)
        let object = try answer(response, from: .deviceAuthorization)
        func string(_ name: String) throws -> String {
            guard let value = object[name]?.stringValue, !value.isEmpty else {
                throw OIDCError(.invalidDecoupledResponse, "the device authorization response has no string \"\(name)\"", httpStatus: response.status)
            }
            return value
        }
        let expiresIn = try DecoupledPolling.positiveInteger(object, "expires_in", what: "device authorization", status: response.status)
        return DeviceAuthorizationResponse(
            deviceCode: try string("device_code"), userCode: try string("user_code"), verificationURI: try string("verification_uri"),
            verificationURIComplete: object["verification_uri_complete"]?.stringValue,
            expiresIn: expiresIn,
            interval: try DecoupledPolling.optionalInterval(object, what: "device authorization", status: response.status),
            expiresAt: clock().addingTimeInterval(TimeInterval(expiresIn)))
    }

    /// Polls the token endpoint for the device grant until the user decides, the
    /// code expires (at `started.expiresAt`, else `expires_in` from now), or the task is cancelled
    /// (see ``DecoupledOutcome``).
    /// - Throws: ``OIDCError`` for any error other than pending/slow-down/denied/expired; `CancellationError`.
    package func pollDeviceAuthorization(
        _ started: DeviceAuthorizationResponse,
        sleeper: PollingSleeper = .task
    ) async throws -> DecoupledOutcome {
        try await DecoupledPolling.poll(
            self, parameters: [("grant_type", Self.deviceCodeGrantType), ("device_code", started.deviceCode)],
            interval: started.interval,
            deadline: started.expiresAt ?? clock().addingTimeInterval(TimeInterval(started.expiresIn)), sleeper: sleeper)
    }
}
