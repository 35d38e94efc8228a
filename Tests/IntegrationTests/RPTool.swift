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
        let (client, registration) = try await OIDCClient.register(
            issuer: issuer, metadata: metadata, privateKey: privateKey,
            transport: transport, configuration: configuration)
        #expect(!registration.clientID.isEmpty)
        var encryptionKeyIDs: [String?] = []
        for _ in 0..<testCase.logins {
            var request = LoginRequest(
                redirectURI: redirectURI, scopes: testCase.scopes, responseType: testCase.responseType,
                responseMode: testCase.responseMode)
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
            } else {
                for name in testCase.requiredClaims { #expect(login.idToken.claims[name] != nil, "the ID Token lacks \(name)") }
            }
        }
        // The tool rotates its encryption keys after each request: every request object went to a new key.
        if encryptionKeyIDs.count > 1 {
            #expect(Set(encryptionKeyIDs.compactMap { $0 }).count == encryptionKeyIDs.count, "request objects encrypted to keys \(encryptionKeyIDs)")
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
