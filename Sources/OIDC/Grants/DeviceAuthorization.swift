#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import JOSE

/// The device authorization endpoint's answer (RFC 8628 §3.2). `Codable` so a
/// waiting device can be resumed; `description` and `dump` never show `device_code`.
public struct DeviceAuthorizationResponse: Sendable, Hashable, Codable, CustomStringConvertible, CustomReflectable {
    /// `device_code`: the device's credential for polling.
    public var deviceCode: String
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

    /// Creates a response.
    public init(deviceCode: String, userCode: String, verificationURI: String, verificationURIComplete: String? = nil, expiresIn: Int,
                interval: Int? = nil) {
        self.deviceCode = deviceCode
        self.userCode = userCode
        self.verificationURI = verificationURI
        self.verificationURIComplete = verificationURIComplete
        self.expiresIn = expiresIn
        self.interval = interval
    }

    /// The user-facing part: verification URI and user code (shown to the user anyway), never the device code.
    public var description: String { "DeviceAuthorizationResponse(verification_uri: \(verificationURI), user_code: \(userCode), expires_in: \(expiresIn))" }
    /// No children: `dump` shows nothing secret.
    public var customMirror: Mirror { Mirror(self, children: [:]) }
}

extension BackChannelClient {
    /// The device grant type (RFC 8628 §3.4).
    public static let deviceCodeGrantType = "urn:ietf:params:oauth:grant-type:device_code"

    /// Starts the device authorization grant (RFC 8628 §3.1).
    /// - Throws: ``OIDCError`` the endpoint errors (`.oauthError` ...), `.invalidDecoupledResponse`
    ///   (missing `device_code`, `user_code`, `verification_uri` or `expires_in`).
    public func requestDeviceAuthorization(scope: String?, additionalParameters: [(name: String, value: String)] = [],
                                           endpoint: URL) async throws -> DeviceAuthorizationResponse {
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
        return DeviceAuthorizationResponse(
            deviceCode: try string("device_code"), userCode: try string("user_code"), verificationURI: try string("verification_uri"),
            verificationURIComplete: object["verification_uri_complete"]?.stringValue,
            expiresIn: try DecoupledPolling.positiveInteger(object, "expires_in", what: "device authorization", status: response.status),
            interval: try DecoupledPolling.optionalInterval(object, what: "device authorization", status: response.status))
    }

    /// Polls the token endpoint for the device grant until the user decides, the
    /// code expires, or the task is cancelled (see ``DecoupledOutcome``).
    /// - Throws: ``OIDCError`` for any error other than pending/slow-down/denied/expired; `CancellationError`.
    public func pollDeviceAuthorization(_ started: DeviceAuthorizationResponse, tokenEndpoint: URL,
                                        sleeper: PollingSleeper = .task) async throws -> DecoupledOutcome {
        try await DecoupledPolling.poll(self, parameters: [("grant_type", Self.deviceCodeGrantType), ("device_code", started.deviceCode)],
                                        tokenEndpoint: tokenEndpoint, interval: started.interval, expiresIn: started.expiresIn, sleeper: sleeper)
    }
}
