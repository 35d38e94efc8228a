import OIDC

/// What a browser-facing route answers for a toolkit error, from the error's category
/// (`OIDCError.category`, `suggestedHTTPStatus`) rather than one status for everything.
enum ErrorAnswers {
    /// `/callback`: a refused callback is a 400 the app shows (a bad or replayed answer, a state mismatch,
    /// a provider that said no); a provider or network outage is a 503 the browser may retry.
    static func callbackStatus(for error: any Error) -> Int {
        guard let error = error as? OIDCError, error.category == .unavailable else { return 400 }
        return error.suggestedHTTPStatus
    }

    /// `/upstream` (an API call as the user): a dead grant (`authenticateAgain`) is a 401 that sends the user to
    /// log in again, an outage a 503; anything else the upstream call's own failure, 502.
    static func upstreamStatus(for error: any Error) -> Int {
        guard let error = error as? OIDCError else { return 502 }
        switch error.category {
        case .authenticateAgain, .unavailable: return error.suggestedHTTPStatus
        default: return 502
        }
    }
}
