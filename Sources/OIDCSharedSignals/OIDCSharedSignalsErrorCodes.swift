import JOSE
import OIDC

/// Every error code of `OIDCSharedSignals` (Security Event Tokens, delivery, transmitter discovery and streams), in one
/// place, each with the category an application branches on (``/OIDCCore/OIDCError/Category``). The strings are stable.
///
/// A refused SET also has its RFC 8935 §2.4 `err` code: `OIDCError.deliveryErrorCode` says which.
extension OIDCError.Code {
    // MARK: invalidInput

    /// A Security Event Token breaks RFC 8417 or SSF 1.0 §4: a claim missing or of the wrong type (`iat`, `jti`,
    /// `events`), `events` not an object, no subject, an event that is not an object, or a JWT that cannot be read
    /// (`err`: `invalid_request`).
    public static let invalidSecurityEventToken = OIDCError.Code("invalid_security_event_token", .invalidInput)
    /// A Security Event Token's `events` holds zero or several events: SSF 1.0 §4.1.8 allows exactly one
    /// (`err`: `invalid_request`).
    public static let securityEventCount = OIDCError.Code("security_event_count", .invalidInput)
    /// A Security Event Token with this `jti` from this transmitter was already received: it is acknowledged
    /// (202, or in the next poll's `ack`) and never acted on twice.
    public static let replayedSecurityEventToken = OIDCError.Code("replayed_security_event_token", .invalidInput)
    /// A push request is not a POST of an `application/secevent+jwt` body (`err`: `invalid_request`).
    public static let invalidPushRequest = OIDCError.Code("invalid_push_request", .invalidInput)
    /// A push request lacks the `Authorization` header the stream was created with (HTTP 401,
    /// `err`: `authentication_failed`).
    public static let pushAuthenticationFailed = OIDCError.Code("push_authentication_failed", .invalidInput)
    /// The transmitter's configuration (`/.well-known/ssf-configuration`) or a stream management answer is not what
    /// SSF 1.0 §7–8 defines: not a JSON object, a member of the wrong type, an endpoint that is not an absolute URL.
    public static let invalidTransmitterAnswer = OIDCError.Code("invalid_transmitter_answer", .invalidInput)
    /// The transmitter's configuration names another `issuer` than the one it was read for (SSF 1.0 §7.2.1).
    public static let transmitterIssuerMismatch = OIDCError.Code("transmitter_issuer_mismatch", .invalidInput)

    // MARK: providerRefused

    /// The transmitter answered a stream management, status, subject, verification or poll request with an error status
    /// (``/OIDCCore/OIDCError/httpStatus`` says which; 409 on create: the stream exists).
    public static let transmitterRefused = OIDCError.Code("transmitter_refused", .providerRefused)

    // MARK: unavailable

    /// The transmitter could not be reached, or answered 5xx or 429; the same call may succeed later.
    public static let transmitterUnavailable = OIDCError.Code("transmitter_unavailable", .unavailable)

    // MARK: configuration

    /// The transmitter offers no endpoint for what was asked (its configuration lacks `configuration_endpoint`,
    /// `status_endpoint`, `add_subject_endpoint`, … or the stream has no poll `endpoint_url`).
    public static let transmitterEndpointMissing = OIDCError.Code("transmitter_endpoint_missing", .configuration)
}
