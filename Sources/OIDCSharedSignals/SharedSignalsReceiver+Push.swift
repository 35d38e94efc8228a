import JOSE

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension SharedSignalsReceiver {
    /// Answers one push request (RFC 8935): what a web framework's route calls with the request and sends back.
    ///
    /// 405 for another method than POST; 401 (`err` `authentication_failed`) when ``Configuration/pushAuthorization``
    /// is set and the `Authorization` header is not exactly it; 400 `invalid_request` for a body that is not an
    /// `application/secevent+jwt`; then ``process(_:)``: 202 with an empty body for an accepted or repeated SET, 400 with
    /// `{"err": ..., "description": ...}` and the RFC 8935 §2.4 code for a refused one, 503 with `Retry-After` when the
    /// keys or the replay cache could not answer, or when acting on the SET failed (a store that could not be
    /// cleared): then its `jti` is released from the replay cache (``Outcome/isReleased``), so the transmitter's
    /// next delivery is acted on. 503 rather than 400 or 500: RFC 8935 §2.4's codes say the SET itself is wrong
    /// (delivering it again cannot help), while §4 leaves retries to the transmitter for conditions of the recipient
    /// that are temporary, which 503 and its `Retry-After` (RFC 9110 §15.6.4, §10.2.3) say, and 500 does not.
    /// With a replay cache that cannot release (an application's own), the SET is acknowledged as before and the
    /// failure is only in ``Outcome/error`` and a failed `set.acted` observer event.
    /// - Parameters:
    ///   - method: the request method.
    ///   - headers: the request headers (`Authorization`, `Content-Type`).
    ///   - body: the request body.
    public func receive(method: String, headers: HeaderFields, body: [UInt8]) async -> PushAnswer {
        guard method.uppercased() == "POST" else {
            return PushAnswer(response: TransportResponse(status: 405, headers: ["Allow": "POST"]), outcome: nil)
        }
        if let expected = configuration.pushAuthorization {
            guard let given = headers["Authorization"], ConstantTime.equals(Array(given.utf8), Array(expected.utf8)) else {
                let error = OIDCError(.pushAuthenticationFailed, "the push request lacks the authorization the stream was created with")
                configuration.observer?.record(
                    OIDCEvent(
                        kind: .securityEventRefused, outcome: .failure(code: error.code.rawValue),
                        origin: Observation.origin(of: configuration.transmitter), detail: error.deliveryErrorCode))
                var response = Self.errorResponse(error, status: 401)
                response.headers["WWW-Authenticate"] = "Bearer"
                return PushAnswer(response: response, outcome: Outcome(token: nil, error: error, sessionsAffected: 0))
            }
        }
        guard MediaType.essence(of: headers["Content-Type"]) == "application/secevent+jwt" else {
            let error = OIDCError(.invalidPushRequest, "the push request's Content-Type is not application/secevent+jwt")
            return PushAnswer(response: Self.errorResponse(error, status: 400), outcome: Outcome(token: nil, error: error, sessionsAffected: 0))
        }
        guard let text = String(validating: body, as: UTF8.self) else {
            let error = OIDCError(.invalidPushRequest, "the push request's body is not UTF-8")
            return PushAnswer(response: Self.errorResponse(error, status: 400), outcome: Outcome(token: nil, error: error, sessionsAffected: 0))
        }
        let outcome = await process(String(text.drop(while: \.isWhitespace).reversed().drop(while: \.isWhitespace).reversed()))
        return PushAnswer(response: Self.response(for: outcome), outcome: outcome)
    }

    /// The push answer for an outcome.
    static func response(for outcome: Outcome) -> TransportResponse {
        // Received (acting on it may have failed and not been undone: that is in the outcome) or repeated.
        if outcome.isAcknowledged { return TransportResponse(status: 202) }
        guard let error = outcome.error else { return TransportResponse(status: 202) }
        if outcome.isReleased { return retryLater(error) }
        switch error.code.category {
        case .invalidInput: return errorResponse(error, status: 400)
        case .unavailable: return retryLater(error)
        default: return errorResponse(error, status: 500)
        }
    }

    /// Seconds a 503 answer asks the transmitter to wait before delivering the SET again.
    static let pushRetryAfterSeconds = 10

    /// 503 with `Retry-After`: deliver this SET again later.
    static func retryLater(_ error: OIDCError) -> TransportResponse {
        var response = errorResponse(error, status: 503)
        response.headers["Retry-After"] = String(pushRetryAfterSeconds)
        return response
    }

    /// `{"err": CODE, "description": TEXT}` (RFC 8935 §2.3), with `Content-Type: application/json`.
    static func errorResponse(_ error: OIDCError, status: Int) -> TransportResponse {
        TransportResponse(
            status: status, headers: ["Content-Type": "application/json", "Cache-Control": "no-store"],
            body: Array(JSONValue.object(Self.setError(error)).jsonString(sortedKeys: true).utf8))
    }

    /// An RFC 8935 §2.3 / RFC 8936 `setErrs` entry: the `err` code and the error's reason (which never holds a secret).
    static func setError(_ error: OIDCError) -> JSONObject {
        ["err": .string(error.deliveryErrorCode), "description": .string(String(error.reason.prefix(256)))]
    }
}
