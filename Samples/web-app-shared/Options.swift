import Foundation
import JOSE
import Logging
import OIDC

/// The command line of both sample apps (the contract: Samples/hummingbird-app/README.md).
struct Options: Sendable {
    /// The program these options are for (`hummingbird-app`, `vapor-app`): named in the usage and at `GET /`.
    var programName = "hummingbird-app"
    var issuer = ""
    var clientID = ""
    var clientSecret: String?
    var clientKeyPath: String?
    /// The `aud` of private_key_jwt assertions: the issuer (default) or the endpoint called (some providers want it).
    var assertionAudience: ClientAssertionAudience = .issuer
    var baseURL: URL = URL(fileURLWithPath: "/")
    var port = 8460
    var audience: String?
    var introspect = false
    var requiredScopes: Set<String> = []
    var responseType: ResponseType = .code
    var responseMode: ResponseMode = .query
    var idTokenAlgorithm: JWSAlgorithm = .rs256
    var logLevel: Logger.Level = .info
    var databaseURL: String?
    /// A file holding the 32-byte key (raw, or 64 hex digits) that seals sessions, pending logins and tokens in PostgreSQL or Redis.
    var databaseKeyPath: String?
    /// For a `rediss://` `--database`: the PEM CA certificates to verify the server with instead of the system's.
    var databaseCAPath: String?
    var scopes = ["openid", "profile", "email"]
    /// Accept back-channel logout tokens as the drafts had them (`typ: JWT`, no `exp`): an explicit opt-in.
    var draftLogoutTokens = false
    /// mTLS (RFC 8705), the provider side: the client certificate and key the transport presents, the CA
    /// trusted for the provider, and whether the client authenticates with `tls_client_auth`.
    var tlsClientCertificatePath: String?
    var tlsClientKeyPath: String?
    var tlsCAFilePath: String?
    var tlsClientAuth = false
    /// Served over https (`--tls-cert`, `--tls-key`), asking clients for a certificate verified against
    /// `--tls-client-ca` (optional: a certificate-bound token needs it, a plain one does not).
    var tlsCertificatePath: String?
    var tlsKeyPath: String?
    var tlsClientCAPath: String?
    /// The login request as a request object (OpenID Connect Core §6, RFC 9101): `nil` (default) sends plain
    /// parameters; `.byValue` puts it in `request`, `.byReference` serves it at `<base-url>/request-objects/<id>`.
    var requestObject: RequestObjectDeliveryChoice?
    /// The private key (JWK, JWK Set or PEM) signing request objects; its `alg`, else one by its type.
    var requestObjectKeyPath: String?
    /// Request objects with `alg: none`: an explicit choice (nothing proves the request comes from this client).
    var requestObjectUnsigned = false
    /// Request objects encrypted to the provider's current encryption key (its jwks_uri).
    var requestObjectEncrypted = false
    /// Seconds from a request object's `iat` to its `exp`; a request object by reference is served that long.
    var requestObjectLifetime: Double = 300
    /// The most logins in progress kept in memory at once (and request objects served by reference), in all.
    var pendingLogins = 100_000
    /// The most of them for one client address (an IPv4 address, an IPv6 /64): one address that floods
    /// `/login` fills only this share.
    var pendingLoginsPerClient = 1_000
    /// The header a reverse proxy in front sets to the client's address (`X-Real-IP`, `X-Forwarded-For`):
    /// the address a login is counted under; without it, the connection's address.
    var clientAddressHeader: String?
    /// How many verified access tokens `/api/resource` keeps (`--verified-token-cache N`; 0: none); `nil`: the library's default.
    var verifiedTokenCache: Int?
    /// `--mcp`: serve the Model Context Protocol endpoint `<base-url>/mcp` (tool `whoami`) behind the resource-server front door.
    var mcp = false
    /// `--mcp-require-scope S` (repeatable): the scopes a token needs on `/mcp`.
    var mcpRequiredScopes: Set<String> = []

    /// `--ssf-transmitter URL`: receive Shared Signals (SSF 1.0, CAEP, RISC) from this transmitter; `nil`: off.
    var ssfTransmitter: String?
    /// `--ssf-access-token-file FILE`: the bearer token for the transmitter's management, status, verification and poll endpoints.
    var ssfAccessTokenFile: String?
    /// `--ssf-delivery push|poll` (default push).
    var ssfDelivery: SSFDelivery = .push
    /// `--ssf-audience AUD`: each SET's `aud` must contain it (default the base URL).
    var ssfAudience: String?
    /// `--ssf-poll-interval SECONDS` (default 5, at least 1).
    var ssfPollInterval = 5

    /// How the transmitter delivers SETs.
    enum SSFDelivery: String, Sendable {
        case push
        case poll
    }

    /// How `--request-object` sends the request object.
    enum RequestObjectDeliveryChoice: String, Sendable {
        case byValue = "by-value"
        case byReference = "by-reference"
    }

    static func usage(_ program: String) -> String {
        """
        usage: \(program) --issuer URL --client-id ID (--client-secret S | --client-key FILE | --tls-client-auth) --base-url URL [--port N]
               [--tls-client-cert FILE --tls-client-key FILE] [--tls-ca-file FILE]
               [--tls-cert FILE --tls-key FILE [--tls-client-ca FILE]]
               [--client-assertion-audience issuer|endpoint]
               [--audience AUD] [--introspect] [--require-scope S]... [--response-type code|"code id_token"|...]
               [--response-mode query|form_post] [--id-token-signed-response-alg RS256] [--log-level info]
               [--database postgresql://...|redis://...|rediss://... [--database-key FILE] [--database-ca FILE]]
               [--scope S]... [--accept-draft-logout-tokens]
               [--request-object by-value|by-reference (--request-object-key FILE | --request-object-unsigned)
                [--request-object-encrypt] [--request-object-lifetime SECONDS]]
               [--pending-logins N] [--pending-logins-per-client N] [--client-address-header NAME]
               [--verified-token-cache N (default 10000; 0: off)] [--mcp [--mcp-require-scope S]...]
               [--ssf-transmitter URL [--ssf-access-token-file FILE] [--ssf-delivery push|poll] [--ssf-audience AUD]
                [--ssf-poll-interval SECONDS]]
        """
    }

    struct UsageError: Error, CustomStringConvertible { let description: String }

    static func parse(_ arguments: [String], program: String = "hummingbird-app") throws -> Options {
        var options = Options()
        options.programName = program
        let usage = usage(program)
        var base: String?
        var scopes: [String] = []
        var lifetimeGiven = false
        var ssfGiven = false
        var index = 0
        func value(_ name: String, _ inline: String?) throws -> String {
            if let inline { return inline }
            index += 1
            guard index < arguments.count else { throw UsageError(description: "\(name) needs a value") }
            return arguments[index]
        }
        while index < arguments.count {
            var name = arguments[index]
            var inline: String?
            if let equals = name.firstIndex(of: "="), name.hasPrefix("--") {
                inline = String(name[name.index(after: equals)...])
                name = String(name[..<equals])
            }
            switch name {
            case "--issuer": options.issuer = try value(name, inline)
            case "--client-id": options.clientID = try value(name, inline)
            case "--client-secret": options.clientSecret = try value(name, inline)
            case "--client-key": options.clientKeyPath = try value(name, inline)
            case "--client-assertion-audience":
                let text = try value(name, inline)
                guard let audience = ClientAssertionAudience(rawValue: text) else {
                    throw UsageError(description: "--client-assertion-audience: issuer or endpoint, not \(text)")
                }
                options.assertionAudience = audience
            case "--base-url": base = try value(name, inline)
            case "--port":
                let text = try value(name, inline)
                guard let port = Int(text), (1...65_535).contains(port) else { throw UsageError(description: "--port: not a port: \(text)") }
                options.port = port
            case "--audience": options.audience = try value(name, inline)
            case "--introspect": options.introspect = true
            case "--require-scope": options.requiredScopes.insert(try value(name, inline))
            case "--scope": scopes.append(try value(name, inline))
            case "--response-type":
                let text = try value(name, inline)
                guard let type = ResponseType(rawValue: text) else { throw UsageError(description: "--response-type: unknown \(text)") }
                options.responseType = type
            case "--response-mode":
                let text = try value(name, inline)
                guard let mode = ResponseMode(rawValue: text), [.query, .formPost, .jwt, .queryJWT, .formPostJWT].contains(mode) else {
                    throw UsageError(description: "--response-mode: query, form_post, jwt, query.jwt or form_post.jwt, not \(text)")
                }
                options.responseMode = mode
            case "--id-token-signed-response-alg":
                let text = try value(name, inline)
                guard let algorithm = JWSAlgorithm(rawValue: text) else { throw UsageError(description: "--id-token-signed-response-alg: unknown \(text)") }
                options.idTokenAlgorithm = algorithm
            case "--log-level":
                let text = try value(name, inline)
                guard let level = Logger.Level(rawValue: text) else {
                    throw UsageError(description: "--log-level: one of trace, debug, info, notice, warning, error, critical")
                }
                options.logLevel = level
            case "--database": options.databaseURL = try value(name, inline)
            case "--database-key": options.databaseKeyPath = try value(name, inline)
            case "--database-ca": options.databaseCAPath = try value(name, inline)
            case "--accept-draft-logout-tokens": options.draftLogoutTokens = true
            case "--tls-client-cert": options.tlsClientCertificatePath = try value(name, inline)
            case "--tls-client-key": options.tlsClientKeyPath = try value(name, inline)
            case "--tls-ca-file": options.tlsCAFilePath = try value(name, inline)
            case "--tls-client-auth": options.tlsClientAuth = true
            case "--tls-cert": options.tlsCertificatePath = try value(name, inline)
            case "--tls-key": options.tlsKeyPath = try value(name, inline)
            case "--tls-client-ca": options.tlsClientCAPath = try value(name, inline)
            case "--request-object":
                let text = try value(name, inline)
                guard let delivery = RequestObjectDeliveryChoice(rawValue: text) else {
                    throw UsageError(description: "--request-object: by-value or by-reference, not \(text)")
                }
                options.requestObject = delivery
            case "--request-object-key": options.requestObjectKeyPath = try value(name, inline)
            case "--request-object-unsigned": options.requestObjectUnsigned = true
            case "--request-object-encrypt": options.requestObjectEncrypted = true
            case "--request-object-lifetime":
                let text = try value(name, inline)
                guard let seconds = Int(text), (1...Int(RequestObject.maximumLifetime)).contains(seconds) else {
                    throw UsageError(description: "--request-object-lifetime: whole seconds from 1 to \(Int(RequestObject.maximumLifetime)), not \(text)")
                }
                options.requestObjectLifetime = Double(seconds)
                lifetimeGiven = true
            case "--pending-logins", "--pending-logins-per-client":
                let text = try value(name, inline)
                guard let count = Int(text), (1...10_000_000).contains(count) else {
                    throw UsageError(description: "\(name): a count from 1 to 10000000, not \(text)")
                }
                if name == "--pending-logins" { options.pendingLogins = count } else { options.pendingLoginsPerClient = count }
            case "--client-address-header":
                let text = try value(name, inline)
                guard !text.isEmpty,
                    text.utf8.allSatisfy({
                        $0 == UInt8(ascii: "-") || (0x30...0x39).contains($0)
                            || (0x41...0x5A).contains($0) || (0x61...0x7A).contains($0)
                    })
                else {
                    throw UsageError(description: "--client-address-header: a header name (letters, digits, -), not \(text)")
                }
                options.clientAddressHeader = text
            case "--verified-token-cache":
                let text = try value(name, inline)
                guard let count = Int(text), (0...10_000_000).contains(count) else {
                    throw UsageError(description: "--verified-token-cache: a count from 0 (off) to 10000000, not \(text)")
                }
                options.verifiedTokenCache = count
            case "--mcp": options.mcp = true
            case "--mcp-require-scope": options.mcpRequiredScopes.insert(try value(name, inline))
            case "--ssf-transmitter": options.ssfTransmitter = try value(name, inline)
            case "--ssf-access-token-file": options.ssfAccessTokenFile = try value(name, inline)
            case "--ssf-delivery":
                let text = try value(name, inline)
                guard let delivery = SSFDelivery(rawValue: text) else { throw UsageError(description: "--ssf-delivery: push or poll, not \(text)") }
                options.ssfDelivery = delivery
                ssfGiven = true
            case "--ssf-audience":
                options.ssfAudience = try value(name, inline)
                ssfGiven = true
            case "--ssf-poll-interval":
                let text = try value(name, inline)
                guard let seconds = Int(text), (1...86_400).contains(seconds) else {
                    throw UsageError(description: "--ssf-poll-interval: whole seconds from 1 to 86400, not \(text)")
                }
                options.ssfPollInterval = seconds
                ssfGiven = true
            case "--help", "-h": throw UsageError(description: usage)
            default: throw UsageError(description: "unknown option \(name)\n\(usage)")
            }
            index += 1
        }
        guard !options.issuer.isEmpty, !options.clientID.isEmpty, let base else {
            throw UsageError(description: "--issuer, --client-id and --base-url are required\n\(usage)")
        }
        guard [options.clientSecret != nil, options.clientKeyPath != nil, options.tlsClientAuth].filter({ $0 }).count == 1 else {
            throw UsageError(description: "give exactly one of --client-secret, --client-key and --tls-client-auth")
        }
        guard (options.tlsClientCertificatePath == nil) == (options.tlsClientKeyPath == nil) else {
            throw UsageError(description: "--tls-client-cert and --tls-client-key go together")
        }
        if options.tlsClientAuth, options.tlsClientCertificatePath == nil {
            throw UsageError(description: "--tls-client-auth needs --tls-client-cert and --tls-client-key")
        }
        guard (options.tlsCertificatePath == nil) == (options.tlsKeyPath == nil), options.tlsClientCAPath == nil || options.tlsCertificatePath != nil else {
            throw UsageError(description: "--tls-cert and --tls-key go together; --tls-client-ca needs them")
        }
        if options.databaseCAPath != nil, options.databaseURL?.lowercased().hasPrefix("rediss://") != true {
            throw UsageError(description: "--database-ca needs a rediss:// --database (PostgreSQL: sslrootcert= in the URL)")
        }
        if options.requestObject == nil {
            guard options.requestObjectKeyPath == nil, !options.requestObjectUnsigned, !options.requestObjectEncrypted,
                !lifetimeGiven
            else {
                throw UsageError(
                    description: "--request-object-key, --request-object-unsigned, --request-object-encrypt and --request-object-lifetime need --request-object"
                )
            }
        } else if (options.requestObjectKeyPath != nil) == options.requestObjectUnsigned {
            throw UsageError(description: "--request-object needs exactly one of --request-object-key FILE (signed) and --request-object-unsigned")
        }
        if !options.mcp, !options.mcpRequiredScopes.isEmpty {
            throw UsageError(description: "--mcp-require-scope needs --mcp")
        }
        if options.ssfTransmitter == nil, ssfGiven || options.ssfAccessTokenFile != nil {
            throw UsageError(
                description: "--ssf-access-token-file, --ssf-delivery, --ssf-audience and --ssf-poll-interval need --ssf-transmitter")
        }
        if let transmitter = options.ssfTransmitter {
            // https, or http on a loopback host (the toolkit's one URL rule; discovery checks it again).
            _ = try SecureURLPolicy.check(transmitter, what: "--ssf-transmitter")
        }
        // The external origin: https, or http on a loopback host (the toolkit's one URL rule).
        var trimmed = base
        while trimmed.hasSuffix("/") { trimmed.removeLast() }
        let url = try SecureURLPolicy.check(trimmed, what: "--base-url")
        guard url.path.isEmpty, url.query == nil, url.fragment == nil else {
            throw UsageError(description: "--base-url is an origin (scheme://host[:port]) without a path")
        }
        options.baseURL = url
        options.pendingLoginsPerClient = min(options.pendingLoginsPerClient, options.pendingLogins)
        if !scopes.isEmpty { options.scopes = scopes.contains("openid") ? scopes : ["openid"] + scopes }
        return options
    }

    /// The rows' AES-256-GCM key from `--database-key` (32 raw bytes, or 64 hex digits), if given.
    func databaseKey() throws -> [UInt8]? {
        guard let path = databaseKeyPath else { return nil }
        let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: path)))
        if bytes.count == 32 { return bytes }
        let text = String(decoding: bytes, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        guard text.utf8.count == 64 else { throw UsageError(description: "--database-key: the file holds neither 32 bytes nor 64 hex digits") }
        var key: [UInt8] = []
        var index = text.startIndex
        while index < text.endIndex {
            let next = text.index(index, offsetBy: 2)
            guard let byte = UInt8(text[index..<next], radix: 16) else {
                throw UsageError(description: "--database-key: the file holds neither 32 bytes nor 64 hex digits")
            }
            key.append(byte)
            index = next
        }
        return key
    }

    /// `<base-url>/<path>`.
    func url(_ path: String) -> URL { URL(string: baseURL.absoluteString + path) ?? baseURL }

    /// Whether the app is served over plain http on a loopback host (then no cookie can be `Secure`).
    var isLoopbackHTTP: Bool { baseURL.scheme == "http" }

    /// How request objects are signed (`--request-object-key`, or the explicit `--request-object-unsigned`); `nil`
    /// without `--request-object`. The key's `alg` when it names one the key admits, else ES256/ES384/ES512 by
    /// curve, EdDSA for Ed25519, RS256 for RSA.
    func requestObjectSignature() throws -> RequestObject.Configuration.Signature? {
        guard requestObject != nil else { return nil }
        guard let path = requestObjectKeyPath else { return requestObjectUnsigned ? .unsignedWithoutClientProof : nil }
        let text: String
        do { text = try String(contentsOfFile: path, encoding: .utf8) } catch {
            throw UsageError(description: "--request-object-key: \(path) cannot be read")
        }
        let keys: [JWK]
        do { keys = try JWK.keys(fromFileText: text) } catch {
            throw UsageError(
                description: "--request-object-key: \(path) holds no readable key (\((error as? JOSEError)?.description ?? WebApp.describe(error)))")
        }
        guard let key = keys.first(where: { $0.isPrivate && $0.keyType != .oct && $0.keyType != .x25519 }) else {
            throw UsageError(description: "--request-object-key: \(path) holds no private signing key")
        }
        if let named = key.algorithm.flatMap(JWSAlgorithm.init(rawValue:)), key.admits(named) {
            return .signed(key: key, algorithm: named)
        }
        return .signed(key: key, algorithm: Self.signingAlgorithm(for: key))
    }

    /// The JWS algorithm for an asymmetric key by its type: ES256/ES384/ES512 by curve, EdDSA, RS256 for RSA.
    static func signingAlgorithm(for key: JWK) -> JWSAlgorithm {
        switch key.keyType {
        case .ec(let curve): return curve.algorithm
        case .ed25519: return .eddsa
        case .mlDSA(let set): return set.algorithm
        case .rsa, .oct, .x25519: return .rs256
        }
    }

    /// The client authentication: client_secret_basic, private_key_jwt with the key in `--client-key`, or
    /// tls_client_auth (the transport's client certificate).
    func authentication() throws -> ClientAuthentication {
        if let clientSecret { return .clientSecretBasic(clientID: clientID, secret: clientSecret) }
        if tlsClientAuth { return .tlsClientAuth(clientID: clientID) }
        guard let path = clientKeyPath else { throw UsageError(description: "no client credentials") }
        let text = try String(contentsOfFile: path, encoding: .utf8)
        let key = text.drop(while: { $0.isWhitespace }).first == "{" ? try JWK(json: text) : try JWK(pem: text)
        guard key.isPrivate, key.keyType != .oct else { throw UsageError(description: "\(path) does not hold an asymmetric private key") }
        return .privateKeyJWT(clientID: clientID, key: key, algorithm: Self.signingAlgorithm(for: key))
    }
}
