import JOSE

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The one place events are timed and their failures named, shared by every module.
package enum Observation {
    /// The stable code an event names `error` by: an ``OIDCError``'s code (for a provider's OAuth
    /// refusal, `oauth_error`, `registration_refused` and `logged_out` are replaced by the registered OAuth code, e.g.
    /// `invalid_grant`; an unregistered one stays `oauth_error`, so a provider's free text never
    /// becomes a label), a ``JOSEError``'s code, `transport` for a bare ``TransportError``, `cancelled`,
    /// or `error` for anything else.
    /// Never a token, a secret or a provider's message.
    package static func code(of error: any Error) -> String {
        if let error = error as? OIDCError {
            if error.code == .oauthError || error.code == .registrationRefused || error.code.rawValue == "logged_out", let oauth = error.oauthError,
                oauth.code.isStandard
            {
                return oauth.code.rawValue
            }
            // A consequence (a logout) is labelled by its cause's code when it has one.
            return (error.code.rawValue == "logged_out" ? error.cause : nil)?.rawValue ?? error.code.rawValue
        }
        if let error = error as? JOSEError { return error.code.rawValue }
        if error is TransportError { return "transport" }
        if error is CancellationError { return "cancelled" }
        return "error"
    }

    /// `scheme://host[:port]` of `text` when it is a URL (an issuer), else `nil`.
    package static func origin(of text: String) -> String? {
        URL(string: text).flatMap(OIDCEvent.origin(of:))
    }
}

extension Optional where Wrapped == any OIDCObserver {
    /// Runs `operation`; with an observer, times it (`ContinuousClock`) and records one event of `kind`
    /// with its outcome (``Observation/code(of:)`` on failure). Without one: `operation` alone, and
    /// `origin` is never evaluated. `detail` (``OIDCEvent/detail``) is evaluated after `operation`, for a failure only.
    package func observe<T>(
        _ kind: OIDCEvent.Kind, origin: @autoclosure () -> String? = nil, grantType: String? = nil,
        detail: @autoclosure () -> String? = nil, isolation: isolated (any Actor)? = #isolation,
        _ operation: () async throws -> T
    ) async throws -> T {
        guard let observer = self else { return try await operation() }
        let clock = ContinuousClock()
        let start = clock.now
        do {
            let value = try await operation()
            observer.record(OIDCEvent(kind: kind, outcome: .success, origin: origin(), grantType: grantType, duration: clock.now - start))
            return value
        } catch {
            observer.record(
                OIDCEvent(
                    kind: kind, outcome: .failure(code: Observation.code(of: error)), origin: origin(),
                    grantType: grantType, duration: clock.now - start, detail: detail()))
            throw error
        }
    }

    /// Records one untimed event of `kind`, when there is an observer (`origin` is evaluated only then).
    package func record(
        _ kind: OIDCEvent.Kind, _ outcome: OIDCEvent.Outcome, origin: @autoclosure () -> String? = nil,
        grantType: String? = nil
    ) {
        guard let observer = self else { return }
        observer.record(OIDCEvent(kind: kind, outcome: outcome, origin: origin(), grantType: grantType))
    }

    /// Records one untimed failure of `kind` named by `error`'s code, when there is an observer.
    package func recordFailure(
        _ kind: OIDCEvent.Kind, _ error: any Error, origin: @autoclosure () -> String? = nil,
        grantType: String? = nil
    ) {
        guard let observer = self else { return }
        observer.record(OIDCEvent(kind: kind, outcome: .failure(code: Observation.code(of: error)), origin: origin(), grantType: grantType))
    }
}
