import Foundation
import JOSE
import OIDC
import OIDCNetworking
import OIDCTLSTransport
import Testing

/// The OpenID Foundation RP test tool started by Tests/providers.sh (`RPTOOL_BASE`): every test id is a provider
/// of its own at `RPTOOL_BASE/<rp_id>/<test_id>`.
enum RPTool {
    static let base = ProcessInfo.processInfo.environment["RPTOOL_BASE"]
    static var isRunning: Bool { base != nil }
    /// The `<rp_id>` part of every issuer.
    static let rpID = "swift-oidc-toolkit"
    /// Never visited: the client reads the provider's redirect (or form) instead. https because the tool refuses
    /// http redirect URIs for clients that register the implicit grant.
    static let redirectURI = URL(string: "https://127.0.0.1:8443/rp-callback")!
    /// Registered for RP-initiated logout; never visited (the client reads the tool's logout page instead).
    static let postLogoutRedirectURI = URL(string: "https://127.0.0.1:8443/rp-logged-out")!
    /// Registered as `frontchannel_logout_uri`; never visited (the client reads the tool's logout iframe instead).
    static let frontChannelLogoutURI = URL(string: "https://127.0.0.1:8443/frontchannel-logout")!
    static let transport = URLSessionTransport()
    /// The TLS instance (WebFinger) and the CA of its certificate.
    static let tlsBase = ProcessInfo.processInfo.environment["RPTOOL_TLS_BASE"]
    static let tlsCA = ProcessInfo.processInfo.environment["RPTOOL_TLS_CA"]
    /// The request-object host (a static server over `objectsDirectory`), for request objects passed by reference.
    static let objectsBase = ProcessInfo.processInfo.environment["RPTOOL_OBJECTS_BASE"]
    static let objectsDirectory = ProcessInfo.processInfo.environment["RPTOOL_OBJECTS_DIR"]

    static func issuer(_ testID: String) throws -> String {
        "\(try #require(base))/\(rpID)/\(testID)"
    }

    /// How a run ended: accepted, or the code of the typed error.
    enum Outcome: Equatable, CustomStringConvertible {
        case accepted
        case refused(String)

        var description: String {
            switch self {
            case .accepted: return "accepted"
            case .refused(let code): return "refused (\(code))"
            }
        }
    }

    /// Registers a client dynamically for `testCase`, logs in through the tool's auto-consenting authorization
    /// endpoint and does what the row asks; a typed refusal is the outcome, anything else is rethrown.
    static func run(_ testCase: RPToolCase) async throws -> (Outcome, String) {
        do {
            try await login(testCase)
            return (.accepted, "")
        } catch let error as OIDCError {
            if error.code == .oauthError || error.code == .registrationRefused, let oauth = error.oauthError {
                return (.refused(oauth.error), error.description)
            }
            return (.refused(error.code.rawValue), error.description)
        } catch let error as JOSEError {
            return (.refused(error.code.rawValue), error.description)
        }
    }

    static func login(_ testCase: RPToolCase) async throws {
        var metadata = ClientMetadata(redirectURIs: [redirectURI])
        metadata.contacts = ["rp-tests@example.org"]
        metadata.responseTypes = [testCase.responseType.rawValue]
        if testCase.responseType != .code { metadata.grantTypes = ["authorization_code", "implicit"] }
        metadata.tokenEndpointAuthMethod = testCase.authMethod
        metadata.idTokenSignedResponseAlgorithm = testCase.idTokenAlgorithm
        var privateKey: JWK?
        if testCase.authMethod == "private_key_jwt" {
            let key = try JWK.generate(.ec(.p256))
            privateKey = key
            metadata.jwks = [key]
            metadata.tokenEndpointAuthSigningAlgorithm = "ES256"
        }
        metadata.userInfoSignedResponseAlgorithm = testCase.userInfoSigningAlgorithm
        func pair(_ text: String?) -> (alg: String, enc: String)? {
            guard let parts = text?.split(separator: " ").map(String.init), parts.count == 2 else { return nil }
            return (parts[0], parts[1])
        }
        let idTokenEncryption = pair(testCase.idTokenEncryption), userInfoEncryption = pair(testCase.userInfoEncryption)
        metadata.idTokenEncryptedResponseAlgorithm = idTokenEncryption?.alg
        metadata.idTokenEncryptedResponseEncryption = idTokenEncryption?.enc
        metadata.userInfoEncryptedResponseAlgorithm = userInfoEncryption?.alg
        metadata.userInfoEncryptedResponseEncryption = userInfoEncryption?.enc
        var decryptionKeys: [JWK] = []
        if idTokenEncryption != nil || userInfoEncryption != nil {
            var key = try JWK.generate(.rsa(bits: 2048))
            key.use = "enc"
            key.keyID = "enc-1"
            decryptionKeys.append(key)
            metadata.jwks = (metadata.jwks ?? []) + [key]
        }
        var requestObjectKey: JWK?
        if let requestObject = testCase.requestObject {
            if requestObject.signed {
                var key = try JWK.generate(.rsa(bits: 2048))
                key.use = "sig"
                key.keyID = "request-object-1"
                requestObjectKey = key
                metadata.jwks = (metadata.jwks ?? []) + [key]
            }
            metadata.requestObjectSigningAlgorithm = requestObject.signed ? "RS256" : "none"
            if requestObject.encrypted {
                metadata.requestObjectEncryptionAlgorithm = "RSA-OAEP"
                metadata.requestObjectEncryptionEncryption = "A128CBC-HS256"
            }
            if requestObject.byReference {
                metadata.requestURIs = [try #require(objectsBase.flatMap { URL(string: "\($0)/") }, "RPTOOL_OBJECTS_BASE is not set")]
            }
        }
        func registered(_ pair: (alg: String, enc: String)?) -> ResponseEncryption? {
            guard let pair, let algorithm = JWEKeyAlgorithm(rawValue: pair.alg) else { return nil }
            return ResponseEncryption(algorithm: algorithm, encryption: JWEContentEncryption(rawValue: pair.enc))
        }
        var configuration = OIDCClient.Configuration()
        configuration.decryptionKeys = JWEDecryptionKeys(keys: decryptionKeys)
        configuration.idTokenEncryption = registered(idTokenEncryption)
        configuration.userInfoTokenInFormBody = testCase.userInfoInBody
        switch (testCase.userInfoSigningAlgorithm != nil, registered(userInfoEncryption)) {
        case (false, nil): configuration.userInfoFormat = .json
        case (true, nil): configuration.userInfoFormat = .signed
        case (false, let encryption?): configuration.userInfoFormat = .encrypted(encryption)
        case (true, let encryption?): configuration.userInfoFormat = .signedAndEncrypted(encryption)
        }
        if let name = testCase.idTokenAlgorithm, let algorithm = JWSAlgorithm(rawValue: name) { configuration.allowedAlgorithms = [algorithm] }
        let transport: any HTTPTransport
        let issuer: String
        if let form = testCase.webFinger {
            let tlsBase = try #require(tlsBase, "RPTOOL_TLS_BASE is not set"), ca = try #require(tlsCA, "RPTOOL_TLS_CA is not set")
            let host = try #require(URL(string: tlsBase)?.host(percentEncoded: false)), port = try #require(URL(string: tlsBase)?.port)
            transport = try LibSSLTransport(serverTrust: .caFile(ca))
            let identifier = form == .acct ? "acct:\(rpID).\(testCase.id)@\(host):\(port)" : "\(tlsBase)/\(rpID)/\(testCase.id)"
            // The tool's TLS instance is on loopback: admitted by name (the default policy refuses it).
            issuer = try await WebFinger.issuer(
                for: identifier, transport: transport,
                fetchPolicy: RemoteFetchPolicy(allowedHosts: [try .init(host: host, port: port)]))
            #expect(issuer == "\(tlsBase)/\(rpID)/\(testCase.id)")
        } else {
            transport = Self.transport
            issuer = try Self.issuer(testCase.id)
        }
        var receiver: LogoutReceiver?
        if let logout = testCase.logout {
            metadata.postLogoutRedirectURIs = [postLogoutRedirectURI]
            switch logout {
            case .rpInitiated: break
            case .backChannel:
                let started = try await LogoutReceiver()
                receiver = started
                metadata.backchannelLogoutURI = started.url
                metadata.backchannelLogoutSessionRequired = true
            case .frontChannel:
                metadata.extra["frontchannel_logout_uri"] = .string(frontChannelLogoutURI.absoluteString)
                metadata.extra["frontchannel_logout_session_required"] = true
            }
        }
        if testCase.thirdPartyInitiated {
            // The tool redirects to initiate_login_uri exactly as registered: the iss a login initiator sends is in it.
            metadata.extra["initiate_login_uri"] = .string("https://127.0.0.1:8443/rp-login?iss=" + FormURLEncoding.encode(issuer))
        }
        do {
            try await loginRegistered(
                testCase, issuer: issuer, metadata: metadata, privateKey: privateKey, requestObjectKey: requestObjectKey,
                transport: transport, configuration: configuration, receiver: receiver)
        } catch {
            await receiver?.stop()
            throw error
        }
        await receiver?.stop()
    }

    /// Registers the row's client, logs in as many times as the row says, and does what it asks after each login.
    static func loginRegistered(
        _ testCase: RPToolCase, issuer: String, metadata: ClientMetadata, privateKey: JWK?, requestObjectKey: JWK?,
        transport: any HTTPTransport, configuration: OIDCClient.Configuration, receiver: LogoutReceiver?
    ) async throws {
        let (client, registration) = try await OIDCClient.register(
            issuer: issuer, metadata: metadata, privateKey: privateKey,
            transport: transport, configuration: configuration)
        #expect(!registration.clientID.isEmpty)
        var encryptionKeyIDs: [String?] = []
        for _ in 0..<testCase.logins {
            var request = LoginRequest(
                redirectURI: redirectURI, scopes: testCase.scopes, responseType: testCase.responseType,
                responseMode: testCase.responseMode)
            if testCase.thirdPartyInitiated {
                let initiation = try await thirdPartyInitiation(testCase.id, clientID: registration.clientID, transport: transport)
                #expect(initiation.path == "/rp-login")
                let query = URLComponents(url: initiation, resolvingAgainstBaseURL: false)?.percentEncodedQuery ?? ""
                let (login, target) = try client.thirdPartyLoginRequest(query, redirectURI: redirectURI, scopes: testCase.scopes)
                #expect(target == nil)
                request = login
            }
            request.prompt = testCase.prompt
            request.maxAge = testCase.maxAge
            if let claims = testCase.claims { request.claims = try ClaimsRequest.parse(claims) }
            if let requestObject = testCase.requestObject {
                request.requestObject = try requestObjectConfiguration(requestObject, key: requestObjectKey)
            }
            let pending = try await client.startLogin(request)
            if testCase.requestObject?.encrypted == true { encryptionKeyIDs.append(try encryptionKeyID(of: pending.url)) }
            let callback = try await authorize(pending.url, transport: transport)
            let login = try await client.finishLogin(pending, callback: callback)
            if testCase.userInfo {
                let claims = try await client.userInfo(login.tokens)
                for name in testCase.requiredClaims { #expect(claims[name] != nil, "UserInfo lacks \(name)") }
                if testCase.resolvesClaims {
                    #expect(claims["_claim_names"] != nil, "UserInfo has no aggregated or distributed claims")
                    // The claims provider is the tool itself (its keys), and its claims endpoint is on loopback: admitted by name.
                    let baseText = try #require(Self.base)
                    let base = try #require(URL(string: baseText))
                    let host = try #require(base.host), port = try #require(base.port)
                    let policy = RemoteFetchPolicy(allowedHosts: [try .init(host: host, port: port)])
                    let resolved = await client.resolveClaims(
                        claims, trusting: ForeignTokenValidator(trustedKeys: [issuer: client.providerKeys]), fetchPolicy: policy)
                    #expect(!resolved.unresolved.isEmpty || resolved.claims.names.contains { ["eye_color", "age"].contains($0) })
                    if let first = resolved.unresolved.sorted(by: { $0.key < $1.key }).first { throw first.value }
                }
            } else {
                for name in testCase.requiredClaims { #expect(login.idToken.claims[name] != nil, "the ID Token lacks \(name)") }
            }
            if let logout = testCase.logout {
                try await logOut(logout, client: client, login: login, transport: transport, receiver: receiver)
            }
        }
        // The tool rotates its encryption keys after each request: every request object went to a new key.
        if encryptionKeyIDs.count > 1 {
            #expect(Set(encryptionKeyIDs.compactMap { $0 }).count == encryptionKeyIDs.count, "request objects encrypted to keys \(encryptionKeyIDs)")
        }
    }

    /// The URL the tool's third-party login initiator (`RPTOOL_BASE/rp/<rp_id>/<test_id>/<client_id>`) sends the browser to.
    static func thirdPartyInitiation(_ testID: String, clientID: String, transport: any HTTPTransport) async throws -> URL {
        let baseText = try #require(base)
        let start = try #require(URL(string: "\(baseText)/rp/\(rpID)/\(testID)/\(FormURLEncoding.encode(clientID))"))
        var request = TransportRequest(url: start)
        request.followsRedirects = false
        let response = try await transport.send(request)
        guard (300..<400).contains(response.status), let location = response.headers["Location"],
            let target = URL(string: location, relativeTo: start)?.absoluteURL
        else {
            throw CLIError("the third-party login initiator answered HTTP \(response.status): \(String(decoding: response.body.prefix(300), as: UTF8.self))")
        }
        return target
    }

    /// RP-initiated logout at the tool: the logout URL (a `state` only for `.rpInitiated(state: true)`), its redirect to the
    /// tool's logout page, then what that page leads to: the post-logout redirect, the logout token the tool POSTed to the
    /// receiver, or the URL of its front-channel iframe, each through the client's own check.
    static func logOut(
        _ logout: LogoutCase, client: OIDCClient, login: LoginResult, transport: any HTTPTransport, receiver: LogoutReceiver?
    ) async throws {
        var state: String?
        if case .rpInitiated(true) = logout { state = "logout-\(UUID().uuidString)" }
        let url = try client.logoutURL(idTokenHint: login.tokens.idToken, postLogoutRedirectURI: postLogoutRedirectURI, state: state)
        // Without cookies: URLSession's shared jar holds the SSO cookies of every test instance under one name and path,
        // which the tool cannot verify for this one (InvalidCookieSign). The id_token_hint names the session.
        let transport: any HTTPTransport = transport is URLSessionTransport ? try LibSSLTransport() : transport
        var request = TransportRequest(url: url)
        request.followsRedirects = false
        let first = try await transport.send(request)
        guard (300..<400).contains(first.status), let location = first.headers["Location"],
            let next = URL(string: location, relativeTo: url)?.absoluteURL
        else {
            throw CLIError("the end_session_endpoint answered HTTP \(first.status): \(String(decoding: first.body.prefix(300), as: UTF8.self))")
        }
        var pageRequest = TransportRequest(url: next)
        pageRequest.followsRedirects = false
        let page = try await transport.send(pageRequest)
        let html = String(decoding: page.body, as: UTF8.self)
        guard page.status == 200 else { throw CLIError("the logout page answered HTTP \(page.status): \(html.prefix(300))") }
        func between(_ start: String, _ end: String) -> String? {
            guard let open = html.range(of: start), let close = html.range(of: end, range: open.upperBound..<html.endIndex) else { return nil }
            return htmlUnescape(String(html[open.upperBound..<close.lowerBound]))
        }
        switch logout {
        case .rpInitiated:
            let target = try #require(between("window.location.replace(\"", "\")").flatMap { URL(string: $0) }, "no redirect on the logout page")
            try client.checkLogoutRedirect(target, postLogoutRedirectURI: postLogoutRedirectURI, state: state)
        case .backChannel:
            let requests = try #require(receiver).received()
            let posted = try #require(requests.first, "the tool POSTed no logout token")
            let result = await client.backChannelLogout(body: posted.body, contentType: posted.contentType)
            let token: LogoutToken
            if posted.contentType.isEmpty {
                // oidctest 0.8.2 POSTs `logout_token=...` without a Content-Type: the whole request is refused (Back-Channel
                // Logout 1.0 §2.5 requires application/x-www-form-urlencoded); the token it carries is then checked on its own.
                #expect(result.error?.code == .invalidLogoutRequest && result.response.status == 400)
                let text = try BackChannelLogoutRequest.logoutToken(fromBody: posted.body, contentType: "application/x-www-form-urlencoded")
                token = try await client.validateLogoutToken(text)
            } else {
                if let error = result.error { throw error }
                #expect(result.response.status == 200)
                token = try #require(result.token)
            }
            #expect(token.subject == login.idToken.subject)
            #expect(token.sessionID?.isEmpty == false)
        case .frontChannel:
            let frame = try #require(between("<iframe src=\"", "\"").flatMap { URL(string: $0) }, "no front-channel iframe on the logout page")
            #expect(frame.path == frontChannelLogoutURI.path)
            let sid = try client.frontChannelLogoutSessionID(URLComponents(url: frame, resolvingAgainstBaseURL: false)?.percentEncodedQuery ?? "")
            // The tool's ID Tokens carry no sid: no session of this client has the one read, so nothing is ended.
            #expect(login.idToken.claims["sid"]?.stringValue != sid)
        }
    }

    /// The options for a row's request object; by reference, each object is a new file of the request-object host.
    static func requestObjectConfiguration(_ requestObject: RequestObjectCase, key: JWK?) throws -> RequestObject.Configuration {
        let signature: RequestObject.Configuration.Signature
        if requestObject.signed {
            signature = .signed(key: try #require(key), algorithm: .rs256)
        } else {
            signature = .unsignedWithoutClientProof
        }
        let encryption = requestObject.encrypted ? RequestObject.Encryption(algorithm: .rsaOAEP, encryption: .a128CBCHS256) : nil
        guard requestObject.byReference else { return RequestObject.Configuration(signature: signature, encryption: encryption) }
        let base = try #require(objectsBase, "RPTOOL_OBJECTS_BASE is not set"), directory = try #require(objectsDirectory, "RPTOOL_OBJECTS_DIR is not set")
        return RequestObject.Configuration(
            signature: signature, encryption: encryption,
            delivery: .byReference { object in
                let name = "\(UUID().uuidString).jwt"
                try Data(object.utf8).write(to: URL(fileURLWithPath: directory).appendingPathComponent(name), options: .atomic)
                guard let url = URL(string: "\(base)/\(name)") else { throw CLIError("no URL for \(name)") }
                return url
            })
    }

    /// The `kid` of the JWE a login's request object is (by value in the URL's `request`, or by reference at its `request_uri`).
    static func encryptionKeyID(of url: URL) throws -> String? {
        let items = try #require(URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems)
        var object = items.first { $0.name == "request" }?.value
        if object == nil, let reference = items.first(where: { $0.name == "request_uri" })?.value, let directory = objectsDirectory {
            let name = try #require(URL(string: reference)?.lastPathComponent)
            object = try String(contentsOf: URL(fileURLWithPath: directory).appendingPathComponent(name), encoding: .utf8)
        }
        let jwe = try CompactJWE(try #require(object, "the authorization URL carries no request object"))
        return jwe.header.keyID
    }

    /// GETs the authorization URL (the tool consents at once) and returns the callback: the 302's `Location`, or the
    /// fields of the form_post form.
    static func authorize(_ url: URL, transport: any HTTPTransport) async throws -> AuthorizationCallback {
        var request = TransportRequest(url: url)
        request.followsRedirects = false
        let response = try await transport.send(request)
        if (300..<400).contains(response.status), let location = response.headers["Location"],
            let target = URL(string: location, relativeTo: url)?.absoluteURL
        {
            return .url(target)
        }
        let page = String(decoding: response.body, as: UTF8.self)
        if response.status == 200, page.contains("<form") {
            return .decodedParameters(formFields(page))
        }
        throw CLIError("the authorization endpoint answered HTTP \(response.status): \(page.prefix(300))")
    }

    /// `name`/`value` of each `<input>` of an HTML form (the tool's form_post page).
    static func formFields(_ page: String) -> [String: String] {
        var fields: [String: String] = [:]
        for tag in page.components(separatedBy: "<input").dropFirst() {
            guard let end = tag.firstIndex(of: ">") else { continue }
            let attributes = String(tag[..<end])
            func attribute(_ name: String) -> String? {
                for quote in ["\"", "'"] {
                    if let start = attributes.range(of: "\(name)=\(quote)") {
                        let rest = attributes[start.upperBound...]
                        if let close = rest.firstIndex(of: Character(quote)) { return htmlUnescape(String(rest[..<close])) }
                    }
                }
                return nil
            }
            if let name = attribute("name"), let value = attribute("value") { fields[name] = value }
        }
        return fields
    }

    static func htmlUnescape(_ text: String) -> String {
        text.replacingOccurrences(of: "&quot;", with: "\"").replacingOccurrences(of: "&#39;", with: "'")
            .replacingOccurrences(of: "&lt;", with: "<").replacingOccurrences(of: "&gt;", with: ">")
            .replacingOccurrences(of: "&amp;", with: "&")
    }
}
