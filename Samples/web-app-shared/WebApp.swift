import Foundation
import JOSE
import Logging
import OIDC
import OIDCResourceServer
import OIDCSession

/// The routes' logic, shared by both sample apps (Samples/hummingbird-app, Samples/vapor-app): each handler
/// takes a framework-neutral ``WebRequest`` and answers the toolkit's `TransportResponse`; each app's glue
/// only converts its framework's request and response. Every secret (pending login, tokens) stays
/// server-side; the browser holds only two opaque random handles (CookiePolicy).
struct WebApp: Sendable {
    let options: Options
    let client: OIDCClient
    let pendingLogins: any PendingLoginStore
    let sessions: any SessionDirectory
    let resource: ProtectedResource
    let logger: Logger
    let cookies: CookiePolicy
    /// `--request-object`: the login request as a request object (by value, or by reference through `requestObjects`).
    let requestObject: RequestObject.Configuration?
    /// The request objects served by reference (`--request-object by-reference`).
    let requestObjects: RequestObjectHost?
    /// `GET /login`'s steps, in their safe order (pending login saved, then the request object published).
    let logins: LoginStarter

    init(
        options: Options, client: OIDCClient, pendingLogins: any PendingLoginStore, sessions: any SessionDirectory,
        resource: ProtectedResource, logger: Logger,
        requestObject: RequestObject.Configuration? = nil, requestObjects: RequestObjectHost? = nil
    ) {
        self.requestObject = requestObject
        self.requestObjects = requestObjects
        self.options = options
        self.client = client
        self.pendingLogins = pendingLogins
        self.sessions = sessions
        self.resource = resource
        self.logger = logger
        logins = LoginStarter(
            client: client, pendingLogins: pendingLogins, requestObject: requestObject, requestObjects: requestObjects,
            redirectURI: options.url("/callback"), scopes: options.scopes, responseType: options.responseType)
        cookies = CookiePolicy(secure: !options.isLoopbackHTTP, formPost: options.responseMode == .formPost || options.responseMode == .formPostJWT)
    }

    /// `GET /`: what the app serves.
    func index() -> TransportResponse { text(200, "\(options.programName): /login, /me, /upstream, /logout, /api/resource\n") }

    // MARK: - Login

    /// `GET /login[?iss=...&login_hint=...]`: state, nonce and PKCE; the pending login server-side, counted
    /// against the client's address (`clientScope`, ``ClientAddress``); with `--request-object`, every parameter
    /// inside a request object (by value, or served by reference once the pending login is saved). A full store
    /// or a full share for the address answers 503 with `Retry-After`.
    func login(_ request: WebRequest, clientScope: String?) async -> TransportResponse {
        var loginHint = request.queryParameter("login_hint")
        // Third-party-initiated login (OpenID Connect Core §4): read by the library, only for the configured issuer, a
        // target_link_uri only under this app (after the login the user lands on /me).
        if request.queryParameter("iss") != nil {
            do {
                let initiation = try client.thirdPartyLoginRequest(
                    request.query ?? "", redirectURI: options.url("/callback"), allowedTargets: [options.url("/")])
                loginHint = initiation.login.loginHint
            } catch {
                logger.info("login refused: \(Self.describe(error))")
                return text(400, "unknown issuer or target\n")
            }
        }
        do {
            // Keyed by the browser's cookie, not by state: a callback finishes only the login its browser started.
            let handle = RandomHandle.make()
            let responseMode = options.responseMode
            let pending = try await logins.start(handle: handle, scope: clientScope) { request in
                if responseMode != .query { request.responseMode = responseMode }  // form_post, or JARM
                request.loginHint = loginHint
            }
            return TransportResponse(
                status: 302, headers: ["Location": pending.url.absoluteString, "Cache-Control": "no-store", "Set-Cookie": cookies.loginCookie(handle)])
        } catch let error as OIDCError where error.code == .pendingLoginStoreFull || error.code == .requestObjectStoreFull {
            logger.warning("login refused: \(Self.describe(error))")
            var response = text(503, "too many logins in progress; try again later\n")
            response.headers.add("Retry-After", "60")
            return response
        } catch {
            logger.warning("login could not start: \(Self.describe(error))")
            return text(500, "the login could not start\n")
        }
    }

    /// `GET /callback?...` or `POST /callback` (form_post): finish the login, start the session.
    func callback(_ request: WebRequest, formBody: String?) async -> TransportResponse {
        var failure = text(400, "the login could not be finished\n")
        failure.headers.add("Set-Cookie", cookies.clearLogin())
        // The answer must come the way it was asked for: the query for query (and JARM's jwt/query.jwt), a POST
        // for form_post and form_post.jwt. A JARM response JWT is verified by finishLogin before code and state are read.
        guard (formBody != nil) == (options.responseMode == .formPost || options.responseMode == .formPostJWT) else { return failure }
        guard let handle = request.cookie(CookiePolicy.login), !handle.isEmpty else {
            logger.info("callback refused: no pending-login cookie")
            return failure
        }
        do {
            let pending = try await pendingLogins.consume(key: handle, as: PendingLogin.self)
            let parameters = formBody ?? request.query ?? ""
            let login = try await client.finishLogin(pending, callback: .parameters(parameters))  // events: the observer
            guard let issuer = login.idToken.issuer, let subject = login.idToken.subject else {
                throw OIDCError(.missingIDToken, "the ID Token has no iss or sub")
            }
            let record = SessionRecord(
                tokenKey: "hbapp:" + (RandomHandle.make()), issuer: issuer, subject: subject,
                sessionID: login.idToken.sessionID, idToken: login.idToken.compact, email: login.idToken.claims["email"]?.stringValue)
            let sessionHandle = RandomHandle.make()
            try await sessions.save(record, handle: sessionHandle)
            try await sessions.tokenStore(for: record).save(login.tokens)
            logger.info("login finished", metadata: ["sub": "\(subject)"])
            var response = TransportResponse(status: 302, headers: ["Location": options.url("/me").absoluteString, "Cache-Control": "no-store"])
            response.headers.add("Set-Cookie", cookies.clearLogin())
            response.headers.add("Set-Cookie", cookies.sessionCookie(sessionHandle, maxAge: Int(sessionLifetime)))
            return response
        } catch {
            logger.info("callback refused: \(Self.describe(error))")
            failure.status = ErrorAnswers.callbackStatus(for: error)
            if failure.status == 503 { failure.headers.add("Retry-After", "30") }
            return failure
        }
    }

    // MARK: - Session

    private func session(_ request: WebRequest) async -> SessionRecord? {
        guard let handle = request.cookie(CookiePolicy.session), !handle.isEmpty else { return nil }
        do { return try await sessions.load(handle: handle) } catch {
            logger.warning("session lookup failed: \(Self.describe(error))")
            return nil
        }
    }

    /// `GET /me`: the ID Token's claims object itself.
    func me(_ request: WebRequest) async -> TransportResponse {
        guard let record = await session(request) else { return unauthorized() }
        guard let token = try? IDToken(record.idToken) else { return text(500, "unreadable session\n") }
        return WebAnswer.json(200, bytes: token.claims.payload)
    }

    /// `GET /upstream`: UserInfo as the user, through the authenticated session (refresh once on a 401).
    func upstream(_ request: WebRequest) async -> TransportResponse {
        guard let record = await session(request) else { return unauthorized() }
        guard let endpoint = client.metadata.userinfoEndpoint else { return text(501, "the provider has no userinfo_endpoint\n") }
        do {
            let store = try sessions.tokenStore(for: record)
            let user = try await client.session(
                configuration: .init(allowedOrigins: [endpoint], store: store, proactiveRefreshMargin: nil))
            let answer = try await user.send(TransportRequest(url: endpoint, headers: ["Accept": "application/json"]))
            let body =
                (try? JSONSerialization.jsonObject(with: Data(answer.body))) != nil
                ? String(decoding: answer.body, as: UTF8.self) : "null"
            return WebAnswer.json(200, "{\"status\":\(answer.status),\"body\":\(body)}")
        } catch {
            logger.info("upstream call failed: \(Self.describe(error))")
            let code = (error as? OIDCError)?.code.rawValue ?? "upstream_failed"
            // A dead grant answers 401 (log in again), an outage 503, anything else 502.
            return WebAnswer.json(ErrorAnswers.upstreamStatus(for: error), "{\"error\":\(JSONValue.string(code).jsonString())}")
        }
    }

    // MARK: - Logout

    /// `POST /backchannel-logout`: a logout token ends the sessions it names (Back-Channel Logout 1.0 §2.5-2.8).
    func backChannelLogout(_ body: [UInt8]) async -> TransportResponse {
        // The token is read from the form body whatever the Content-Type (some providers send none), and checked
        // by the client with its own key cache and the logout-token replay cache.
        let answer = await client.backChannelLogout(body: body, contentType: "application/x-www-form-urlencoded")
        guard let token = answer.token else {
            logger.info("back-channel logout refused: \(answer.error.map { Self.describe($0) } ?? "refused")")
            return answer.response
        }
        do {
            let ended = try await sessions.deleteSessions(issuer: token.issuer, subject: token.subject, sessionID: token.sessionID)
            logger.info("back-channel logout", metadata: ["sessions_ended": "\(ended)"])
            return answer.response
        } catch {
            logger.info("back-channel logout refused: \(Self.describe(error))")
            return WebAnswer.json(400, "{\"error\":\"invalid_request\"}")
        }
    }

    /// `GET /frontchannel-logout?iss=ISS&sid=SID` (Front-Channel Logout 1.0 §2): ends the sessions whose ID Token carried
    /// that `sid` from the configured issuer (their cookie no longer authenticates, their tokens are dropped); another
    /// `iss` or an unknown `sid` ends nothing. Answered with `Cache-Control: no-cache, no-store` either way.
    func frontChannelLogout(_ request: WebRequest) async -> TransportResponse {
        var status = 200
        do {
            let sid = try client.frontChannelLogoutSessionID(request.query ?? "")
            let ended = try await sessions.deleteSessions(issuer: client.issuer, subject: nil, sessionID: sid)
            logger.info("front-channel logout", metadata: ["sessions_ended": "\(ended)"])
        } catch {
            logger.info("front-channel logout refused: \(Self.describe(error))")
            status = 400
        }
        return TransportResponse(
            status: status, headers: ["Content-Type": "text/html; charset=utf-8", "Cache-Control": "no-cache, no-store"],
            body: Array("<!DOCTYPE html><title>Logged out</title>\n".utf8))
    }

    /// `GET /logout`: end the local session, then the provider's (RP-Initiated Logout 1.0).
    func logout(_ request: WebRequest) async -> TransportResponse {
        var record: SessionRecord?
        if let handle = request.cookie(CookiePolicy.session), !handle.isEmpty {
            do { record = try await sessions.delete(handle: handle) } catch {
                logger.warning("logout: the session could not be deleted: \(Self.describe(error))")
            }
        }
        var target = options.url("/")
        if client.metadata.endSessionEndpoint != nil {
            do {
                target = try client.logoutURL(idTokenHint: record?.idToken, postLogoutRedirectURI: options.url("/"), state: nil)
            } catch {
                logger.warning("logout: no end-session URL: \(Self.describe(error))")
            }
        }
        return TransportResponse(
            status: 302, headers: ["Location": target.absoluteString, "Cache-Control": "no-store", "Set-Cookie": cookies.clearSession()])
    }

    // MARK: - Helpers

    private func unauthorized() -> TransportResponse { WebAnswer.json(401, "{\"error\":\"not_logged_in\"}") }

    private func text(_ status: Int, _ text: String) -> TransportResponse { WebAnswer.text(status, text) }

    /// An error for the log: its stable code and reason (toolkit errors never carry secrets).
    static func describe(_ error: any Error) -> String {
        if let error = error as? OIDCError { return "\(error.code.rawValue): \(error.reason)" }
        return String(describing: type(of: error))
    }
}
