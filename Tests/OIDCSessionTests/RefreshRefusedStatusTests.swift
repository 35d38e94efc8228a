import Foundation
import JOSE
import OIDC
import OIDCSession
import Synchronization
import Testing

/// A token endpoint and an API behind one scripted transport: the API accepts no access token (every call is a
/// 401, so the session refreshes); the token endpoint answers every refresh with `reply`. Counts both.
final class RefusingTokenEndpoint: HTTPTransport, Sendable {
    enum Reply: Sendable {
        case answer(status: Int, body: String, contentType: String?)
        case failure(TransportError)
    }

    static let tokenEndpoint = URL(string: "https://as.example/token")!
    let reply: Reply
    private let counts = Mutex<(token: Int, api: Int)>((0, 0))

    init(_ reply: Reply) { self.reply = reply }

    var tokenCalls: Int { counts.withLock { $0.token } }
    var apiCalls: Int { counts.withLock { $0.api } }

    func send(_ request: TransportRequest) async throws -> TransportResponse {
        guard request.url == Self.tokenEndpoint else {
            counts.withLock { $0.api += 1 }
            return TransportResponse(status: 401, headers: ["WWW-Authenticate": #"Bearer error="invalid_token""#])
        }
        counts.withLock { $0.token += 1 }
        switch reply {
        case .answer(let status, let body, let contentType):
            return TransportResponse(status: status, headers: contentType.map { ["Content-Type": $0] } ?? [:], body: Array(body.utf8))
        case .failure(let error):
            throw error
        }
    }
}

/// How the session reads the token endpoint's answer to a refresh: an HTTP 400 or 401, with or without an OAuth
/// error body, ends the grant (glewlwyd answers a revoked refresh token with an empty 400); transport failures,
/// timeouts and 5xx keep the tokens for a later try.
@Suite("AuthenticatedSession: a refresh refused by status")
struct RefreshRefusedStatusTests {
    struct Case: Sendable, CustomStringConvertible {
        let name: String
        let reply: RefusingTokenEndpoint.Reply
        let logsOut: Bool
        let code: OIDCError.Code
        var description: String { name }
    }

    static let cases: [Case] = [
        Case(name: "400, empty body", reply: .answer(status: 400, body: "", contentType: nil), logsOut: true, code: .loggedOut),
        Case(name: "401, empty body", reply: .answer(status: 401, body: "", contentType: nil), logsOut: true, code: .loggedOut),
        Case(name: "400, HTML page", reply: .answer(status: 400, body: "<html>Bad Request</html>", contentType: "text/html"), logsOut: true, code: .loggedOut),
        Case(
            name: "400 invalid_grant", reply: .answer(status: 400, body: #"{"error":"invalid_grant"}"#, contentType: "application/json"),
            logsOut: true, code: .loggedOut),
        Case(
            name: "400 invalid_request", reply: .answer(status: 400, body: #"{"error":"invalid_request"}"#, contentType: "application/json"),
            logsOut: true, code: .loggedOut),
        Case(
            name: "401 invalid_client", reply: .answer(status: 401, body: #"{"error":"invalid_client"}"#, contentType: "application/json"),
            logsOut: false, code: .refreshRejected),
        Case(name: "500, empty body", reply: .answer(status: 500, body: "", contentType: nil), logsOut: false, code: .refreshFailed),
        Case(
            name: "503 with a JSON body", reply: .answer(status: 503, body: #"{"message":"down"}"#, contentType: "application/json"),
            logsOut: false, code: .refreshFailed),
        Case(name: "transport failure (refused)", reply: .failure(.connectionFailed("refused")), logsOut: false, code: .refreshFailed),
        Case(name: "timeout", reply: .failure(.timedOut), logsOut: false, code: .refreshFailed),
    ]

    @Test(
        "through TokenClient: 400/401 (empty, HTML, invalid_grant, another grant error) log out; invalid_client, 5xx, transport keep the tokens",
        arguments: cases)
    func refusal(_ scripted: Case) async throws {
        let world = RefusingTokenEndpoint(scripted.reply)
        let refresher = try TokenClient(
            tokenEndpoint: RefusingTokenEndpoint.tokenEndpoint, authentication: .clientSecretBasic(clientID: "app", secret: "s"),
            transport: world)
        let store = InMemoryTokenStore(Fixtures.start)
        let session = try AuthenticatedSession(
            tokens: Fixtures.start, refresher: refresher,
            configuration: .init(
                allowedOrigins: [Fixtures.api], transport: world, store: store, proactiveRefreshMargin: nil,
                refreshBackoff: 0))
        await #expect { try await session.send(TransportRequest(url: Fixtures.api)) } throws: {
            ($0 as? OIDCError)?.code == scripted.code
        }
        #expect(world.tokenCalls == 1 && world.apiCalls == 1)
        session.finishEvents()
        var events: [SessionEvent] = []
        for await event in session.events { events.append(event) }
        if scripted.logsOut {
            // The tokens and the store are cleared and the logout reported, naming its cause.
            #expect(await session.currentTokens == nil)
            #expect(await store.load() == nil)
            guard events.count == 1, case .loggedOut(let error) = events[0] else {
                Issue.record("expected one logged-out event, got \(events)")
                return
            }
            #expect(error.httpStatus == (scripted.name.hasPrefix("401") ? 401 : 400))
            #expect(!"\(events[0])".hasSuffix("logged_out"), "the event names its cause: \(events[0])")
            // The next request does not try the dead tokens again: nothing reaches the API or the token endpoint.
            await #expect { try await session.send(TransportRequest(url: Fixtures.api)) } throws: { ($0 as? OIDCError)?.code == .notAuthenticated }
            #expect(world.tokenCalls == 1 && world.apiCalls == 1)
        } else {
            #expect(await session.currentTokens?.refreshToken == "RT-1")
            #expect(await store.load()?.refreshToken == "RT-1")
            guard events.count == 1, case .refreshFailed(let error) = events[0] else {
                Issue.record("expected one refresh-failed event, got \(events)")
                return
            }
            #expect(error.code == scripted.code)
            // Kept for a later try: the next request refreshes again with the same refresh token.
            await #expect { try await session.send(TransportRequest(url: Fixtures.api)) } throws: { ($0 as? OIDCError)?.code == scripted.code }
            #expect(world.tokenCalls == 2)
        }
    }
}
