import OIDC
import Testing

@testable import hummingbird_app

/// The browser-facing routes answer by the error's category, not one status for everything (issue 34).
@Suite("hummingbird-app: answers by error category")
struct ErrorAnswersTests {
    @Test("a refused callback is a 400; a provider outage at the callback is a 503")
    func callbackStatus() {
        #expect(ErrorAnswers.callbackStatus(for: OIDCError(.stateMismatch, "state")) == 400)
        #expect(ErrorAnswers.callbackStatus(for: OIDCError(.authorizationError, "access_denied")) == 400)
        #expect(ErrorAnswers.callbackStatus(for: OIDCError(.endpointServerError, "down")) == 503)
        #expect(ErrorAnswers.callbackStatus(for: CancellationError()) == 400)
    }

    @Test("an API call whose grant died asks for a new login (401); an outage is a 503; the rest a 502")
    func upstreamStatus() {
        #expect(ErrorAnswers.upstreamStatus(for: OIDCError(.refreshTokenSpent, "gone")) == 401)
        #expect(ErrorAnswers.upstreamStatus(for: OIDCError(.transport, "down")) == 503)
        #expect(ErrorAnswers.upstreamStatus(for: OIDCError(.stateMismatch, "state")) == 502)
        #expect(ErrorAnswers.upstreamStatus(for: CancellationError()) == 502)
    }
}
