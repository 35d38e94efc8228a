import Foundation
import HTTPTypes
import Hummingbird
import JOSE
import Logging
import NIOCore
import OIDC
import OIDCResourceServer
import OIDCSession

/// The routes. Every secret (pending login, tokens) stays server-side; the browser holds only
/// two opaque random handles (CookiePolicy).
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

    func register(on router: Router<AppRequestContext>) {
        router.get("/") { _, _ -> Response in self.text(.ok, "hummingbird-app: /login, /me, /upstream, /logout, /api/resource\n") }
        router.get("/login") { request, context -> Response in
            let forwarded = options.clientAddressHeader.flatMap { HTTPField.Name($0) }.flatMap { request.headers[$0] }
            return await self.login(request, clientScope: ClientAddress.scope(peer: context.channel.remoteAddress, forwarded: forwarded))
        }
        router.get("/callback") { request, _ -> Response in await self.callback(request, formBody: nil) }
        router.post("/callback") { request, _ -> Response in
            var request = request
            guard let body = try? await request.collectBody(upTo: 1 << 16) else { return self.text(.badRequest, "bad callback\n") }
            return await self.callback(request, formBody: String(buffer: body))
        }
        router.get("/me") { request, _ -> Response in await self.me(request) }
        router.get("/upstream") { request, _ -> Response in await self.upstream(request) }
        router.post("/backchannel-logout") { request, _ -> Response in
            var request = request
            guard let body = try? await request.collectBody(upTo: 1 << 16) else {
                return JSONResponse.make(.badRequest, "{\"error\":\"invalid_request\"}")
            }
            return await self.backChannelLogout(Array(buffer: body))
        }
        router.get("/frontchannel-logout") { request, _ -> Response in await self.frontChannelLogout(request) }
        router.get("/logout") { request, _ -> Response in await self.logout(request) }
        router.get("/api/resource") { request, context -> Response in
            await self.resource.answer(request, clientCertificate: await context.clientCertificate())
        }
        router.get(RouterPath(resource.metadataURL.path)) { _, _ -> Response in self.resource.metadataDocument() }
        if let requestObjects {
            router.get(RouterPath(RequestObjectHost.pathPrefix + ":id")) { _, context -> Response in
                await requestObjects.answer(id: context.parameters.get("id"))
            }
        }
    }

    // MARK: - Login

    /// `GET /login[?iss=...&login_hint=...]`: state, nonce and PKCE; the pending login server-side, counted
    /// against the client's address (`clientScope`, ``ClientAddress``); with `--request-object`, every parameter
    /// inside a request object (by value, or served by reference once the pending login is saved). A full store
    /// or a full share for the address answers 503 with `Retry-After`.
    func login(_ request: Request, clientScope: String?) async -> Response {
        let query = request.uri.queryParameters
        var loginHint = query["login_hint"].map(String.init)
        // Third-party-initiated login (OpenID Connect Core §4): read by the library, only for the configured issuer, a
        // target_link_uri only under this app (after the login the user lands on /me).
        if query["iss"] != nil {
            do {
                let initiation = try client.thirdPartyLoginRequest(
                    request.uri.query ?? "", redirectURI: options.url("/callback"), allowedTargets: [options.url("/")])
                loginHint = initiation.login.loginHint
            } catch {
                logger.info("login refused: \(Self.describe(error))")
                return text(.badRequest, "unknown issuer or target\n")
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
            var response = Response(status: .found, headers: [.location: pending.url.absoluteString, .cacheControl: "no-store"])
            response.headers.append(HTTPField(name: .setCookie, value: cookies.loginCookie(handle)))
            return response
        } catch let error as OIDCError where error.code == .pendingLoginStoreFull || error.code == .requestObjectStoreFull {
            logger.warning("login refused: \(Self.describe(error))")
            var response = text(.serviceUnavailable, "too many logins in progress; try again later\n")
            response.headers[.retryAfter] = "60"
            return response
        } catch {
            logger.warning("login could not start: \(Self.describe(error))")
            return text(.internalServerError, "the login could not start\n")
        }
    }

    /// `GET /callback?...` or `POST /callback` (form_post): finish the login, start the session.
    func callback(_ request: Request, formBody: String?) async -> Response {
        var failure = text(.badRequest, "the login could not be finished\n")
        failure.headers.append(HTTPField(name: .setCookie, value: cookies.clearLogin()))
        // The answer must come the way it was asked for: the query for query (and JARM's jwt/query.jwt), a POST
        // for form_post and form_post.jwt. A JARM response JWT is verified by finishLogin before code and state are read.
        guard (formBody != nil) == (options.responseMode == .formPost || options.responseMode == .formPostJWT) else { return failure }
        guard let handle = request.cookies[CookiePolicy.login]?.value, !handle.isEmpty else {
            logger.info("callback refused: no pending-login cookie")
            return failure
        }
        do {
            let pending = try await pendingLogins.consume(key: handle, as: PendingLogin.self)
            let parameters = formBody ?? request.uri.query ?? ""
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
            var response = Response(status: .found, headers: [.location: options.url("/me").absoluteString, .cacheControl: "no-store"])
            response.headers.append(HTTPField(name: .setCookie, value: cookies.clearLogin()))
            response.headers.append(HTTPField(name: .setCookie, value: cookies.sessionCookie(sessionHandle, maxAge: Int(sessionLifetime))))
            return response
        } catch {
            logger.info("callback refused: \(Self.describe(error))")
            failure.status = ErrorAnswers.callbackStatus(for: error)
            if failure.status == .serviceUnavailable { failure.headers[.retryAfter] = "30" }
            return failure
        }
    }

    // MARK: - Session

    private func session(_ request: Request) async -> SessionRecord? {
        guard let handle = request.cookies[CookiePolicy.session]?.value, !handle.isEmpty else { return nil }
        do { return try await sessions.load(handle: handle) } catch {
            logger.warning("session lookup failed: \(Self.describe(error))")
            return nil
        }
    }

    /// `GET /me`: the ID Token's claims object itself.
    func me(_ request: Request) async -> Response {
        guard let record = await session(request) else { return unauthorized() }
        guard let token = try? IDToken(record.idToken) else { return text(.internalServerError, "unreadable session\n") }
        return JSONResponse.make(.ok, bytes: token.claims.payload)
    }

    /// `GET /upstream`: UserInfo as the user, through the authenticated session (refresh once on a 401).
    func upstream(_ request: Request) async -> Response {
        guard let record = await session(request) else { return unauthorized() }
        guard let endpoint = client.metadata.userinfoEndpoint else { return text(.notImplemented, "the provider has no userinfo_endpoint\n") }
        do {
            let store = try sessions.tokenStore(for: record)
            let user = try await client.session(
                configuration: .init(allowedOrigins: [endpoint], store: store, proactiveRefreshMargin: nil))
            let answer = try await user.send(TransportRequest(url: endpoint, headers: ["Accept": "application/json"]))
            let body =
                (try? JSONSerialization.jsonObject(with: Data(answer.body))) != nil
                ? String(decoding: answer.body, as: UTF8.self) : "null"
            return JSONResponse.make(.ok, "{\"status\":\(answer.status),\"body\":\(body)}")
        } catch {
            logger.info("upstream call failed: \(Self.describe(error))")
            let code = (error as? OIDCError)?.code.rawValue ?? "upstream_failed"
            // A dead grant answers 401 (log in again), an outage 503, anything else 502.
            return JSONResponse.make(ErrorAnswers.upstreamStatus(for: error), "{\"error\":\(JSONValue.string(code).jsonString())}")
        }
    }

    // MARK: - Logout

    /// `POST /backchannel-logout`: a logout token ends the sessions it names (Back-Channel Logout 1.0 §2.5-2.8).
    func backChannelLogout(_ body: [UInt8]) async -> Response {
        // The token is read from the form body whatever the Content-Type (some providers send none), and checked
        // by the client with its own key cache and the logout-token replay cache.
        let answer = await client.backChannelLogout(body: body, contentType: "application/x-www-form-urlencoded")
        guard let token = answer.token else {
            logger.info("back-channel logout refused: \(answer.error.map { Self.describe($0) } ?? "refused")")
            return Self.response(answer.response)
        }
        do {
            let ended = try await sessions.deleteSessions(issuer: token.issuer, subject: token.subject, sessionID: token.sessionID)
            logger.info("back-channel logout", metadata: ["sessions_ended": "\(ended)"])
            return Self.response(answer.response)
        } catch {
            logger.info("back-channel logout refused: \(Self.describe(error))")
            return JSONResponse.make(.badRequest, "{\"error\":\"invalid_request\"}")
        }
    }

    /// `GET /frontchannel-logout?iss=ISS&sid=SID` (Front-Channel Logout 1.0 §2): ends the sessions whose ID Token carried
    /// that `sid` from the configured issuer (their cookie no longer authenticates, their tokens are dropped); another
    /// `iss` or an unknown `sid` ends nothing. Answered with `Cache-Control: no-cache, no-store` either way.
    func frontChannelLogout(_ request: Request) async -> Response {
        var status = HTTPResponse.Status.ok
        do {
            let sid = try client.frontChannelLogoutSessionID(request.uri.query ?? "")
            let ended = try await sessions.deleteSessions(issuer: client.issuer, subject: nil, sessionID: sid)
            logger.info("front-channel logout", metadata: ["sessions_ended": "\(ended)"])
        } catch {
            logger.info("front-channel logout refused: \(Self.describe(error))")
            status = .badRequest
        }
        return Response(
            status: status, headers: [.contentType: "text/html; charset=utf-8", .cacheControl: "no-cache, no-store"],
            body: ResponseBody(byteBuffer: ByteBuffer(string: "<!DOCTYPE html><title>Logged out</title>\n")))
    }

    /// The toolkit's HTTP answer as a Hummingbird response.
    static func response(_ answer: TransportResponse) -> Response {
        var headers = HTTPFields()
        for (name, value) in answer.headers {
            if let field = HTTPField.Name(name) { headers.append(HTTPField(name: field, value: value)) }
        }
        return Response(
            status: HTTPResponse.Status(code: answer.status), headers: headers,
            body: ResponseBody(byteBuffer: ByteBuffer(bytes: answer.body)))
    }

    /// `GET /logout`: end the local session, then the provider's (RP-Initiated Logout 1.0).
    func logout(_ request: Request) async -> Response {
        var record: SessionRecord?
        if let handle = request.cookies[CookiePolicy.session]?.value, !handle.isEmpty {
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
        var response = Response(status: .found, headers: [.location: target.absoluteString, .cacheControl: "no-store"])
        response.headers.append(HTTPField(name: .setCookie, value: cookies.clearSession()))
        return response
    }

    // MARK: - Helpers

    private func unauthorized() -> Response { JSONResponse.make(.unauthorized, "{\"error\":\"not_logged_in\"}") }

    private func text(_ status: HTTPResponse.Status, _ text: String) -> Response {
        Response(
            status: status, headers: [.contentType: "text/plain; charset=utf-8", .cacheControl: "no-store"],
            body: ResponseBody(byteBuffer: ByteBuffer(string: text)))
    }

    /// An error for the log: its stable code and reason (toolkit errors never carry secrets).
    static func describe(_ error: any Error) -> String {
        if let error = error as? OIDCError { return "\(error.code.rawValue): \(error.reason)" }
        return String(describing: type(of: error))
    }
}
