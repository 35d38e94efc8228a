import JOSE

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// How a decoupled login (CIBA poll mode, the device authorization grant) ended.
package enum DecoupledOutcome: Sendable, CustomStringConvertible {
    /// The user approved: the token response (validate its ID Token like any other).
    case granted(TokenResponse)
    /// The user (or the provider) refused: `access_denied`.
    case denied(OAuthError)
    /// The request expired before a decision: `expired_token`, or the local
    /// deadline (`expires_in`) passed (then the error is `expired_token` with no description).
    case expired(OAuthError)

    /// `granted`, `denied: access_denied` or `expired: expired_token`; never a token.
    package var description: String {
        switch self {
        case .granted(let tokens): return "granted(\(tokens))"
        case .denied(let error): return "denied: \(error.error)"
        case .expired(let error): return "expired: \(error.error)"
        }
    }
}

/// Waits between polls. The default sleeps with `Task.sleep` (cancellation
/// ends the wait with `CancellationError`); tests inject one that returns at once.
public struct PollingSleeper: Sendable {
    /// Waits `seconds`; throws `CancellationError` when the task is cancelled.
    package let sleep: @Sendable (_ seconds: Int) async throws -> Void

    /// A sleeper from a closure.
    public init(_ sleep: @escaping @Sendable (_ seconds: Int) async throws -> Void) { self.sleep = sleep }

    /// `Task.sleep`.
    public static let task = PollingSleeper { seconds in try await Task.sleep(nanoseconds: UInt64(max(seconds, 0)) * 1_000_000_000) }
}

/// The polling rules shared by CIBA (Core §7.3, §11) and the device grant (RFC 8628 §3.4, §3.5).
enum DecoupledPolling {
    /// The interval when the provider gives none (CIBA Core §7.3, RFC 8628 §3.2).
    static let defaultInterval = 5
    /// What `slow_down` adds to the interval.
    static let slowDownIncrement = 5

    /// Polls the token endpoint with `parameters` every `interval` seconds until
    /// the user decides or the client's clock reaches `deadline` (the absolute expiry of the
    /// request, kept across a resume): `authorization_pending`
    /// waits again, `slow_down` adds 5 s to the interval for this and every later
    /// poll, `access_denied` and `expired_token` end with an outcome, any other
    /// error is thrown. An HTTP 503 or 429 with `Retry-After` (seconds or an HTTP date) makes the next wait that
    /// long (never shorter than the interval); a wait that would end past the deadline ends the grant as
    /// expired at once; an unreadable `Retry-After` is `.invalidDecoupledResponse`.
    /// Cancelling the task ends the wait with `CancellationError`.
    static func poll(
        _ client: TokenClient, parameters: [(name: String, value: String)],
        interval: Int?, deadline: Date, sleeper: PollingSleeper
    ) async throws -> DecoupledOutcome {
        var interval = max(interval ?? defaultInterval, 1)
        var wait = interval
        if client.clock() >= deadline { return .expired(OAuthError(error: "expired_token")) }
        while true {
            try Task.checkCancellation()
            try await sleeper.sleep(wait)
            wait = interval
            try Task.checkCancellation()
            if client.clock() >= deadline { return .expired(OAuthError(error: "expired_token")) }
            do {
                return .granted(try await client.requestTokens(parameters, rule: .strict, readsRetryAfter: true))
            } catch let pause as RetryAfter {
                // RFC 9110 §10.2.3: not before the server says; the grant's own deadline still bounds the wait.
                wait = max(pause.seconds, interval)
                if client.clock().addingTimeInterval(Double(wait)) >= deadline { return .expired(OAuthError(error: "expired_token")) }
            } catch let error as OIDCError {
                guard let oauth = error.oauthError else { throw error }
                switch oauth.error {
                case "authorization_pending": continue
                case "slow_down":
                    interval += slowDownIncrement
                    wait = interval
                case "access_denied": return .denied(oauth)
                case "expired_token": return .expired(oauth)
                default: throw error
                }
            }
        }
    }

    /// A required positive integer member (`expires_in`), bounded so dates stay sane.
    static func positiveInteger(_ object: JSONObject, _ name: String, what: String, status: Int) throws -> Int {
        guard let value = object[name]?.int64Value, value > 0, value <= Int64(Int32.max) else {
            throw OIDCError(.invalidDecoupledResponse, "the \(what) response has no positive integer \"\(name)\"", httpStatus: status)
        }
        return Int(value)
    }

    /// An optional positive integer member (`interval`); absent is `nil`, present and invalid is an error.
    static func optionalInterval(_ object: JSONObject, what: String, status: Int) throws -> Int? {
        guard let value = object["interval"], !value.isNull else { return nil }
        guard let seconds = value.int64Value, seconds >= 0, seconds <= 3600 else {
            throw OIDCError(.invalidDecoupledResponse, "the \(what) response's \"interval\" is not an integer between 0 and 3600", httpStatus: status)
        }
        return Int(seconds)
    }
}
