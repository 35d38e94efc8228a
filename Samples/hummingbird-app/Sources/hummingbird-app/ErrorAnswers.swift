import HTTPTypes
import OIDC

/// What a browser-facing route answers for a toolkit error, from the error's category
/// (`OIDCError.category`, `suggestedHTTPStatus`) rather than one status for everything.
enum ErrorAnswers {
    /// `/callback`: a refused callback is a 400 the app shows (a bad or replayed answer, a state mismatch,
    /// a provider that said no); a provider or network outage is a 503 the browser may retry.
    static func callbackStatus(for error: any Error) -> HTTPResponse.Status {
        guard let error = error as? OIDCError, error.category == .unavailable else { return .badRequest }
        return HTTPResponse.Status(code: error.suggestedHTTPStatus)
    }

    /// `/upstream` (an API call as the user): a dead grant (`authenticateAgain`) is a 401 that sends the user to
    /// log in again, an outage a 503; anything else the upstream call's own failure, 502.
    static func upstreamStatus(for error: any Error) -> HTTPResponse.Status {
        guard let error = error as? OIDCError else { return .badGateway }
        switch error.category {
        case .authenticateAgain, .unavailable: return HTTPResponse.Status(code: error.suggestedHTTPStatus)
        default: return .badGateway
        }
    }
}
