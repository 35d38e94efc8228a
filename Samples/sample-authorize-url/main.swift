// sample-authorize-url: builds an authorization URL with fresh state, nonce and PKCE.
//
//   swift run sample-authorize-url --authorization-endpoint URL --client-id ID --redirect-uri URI
//       [--scope "openid profile"] [--claims JSON] [--param NAME=VALUE]... [--response-type TYPE]
//       [--limit NAME=N]... [--authorization-details JSON] [--audience A]
//   swift run sample-authorize-url --issuer URL [--profile entra|google|apple|keycloak|okta|auth0] ...
//       (discovery: an OIDCClient starts the login, with the profile's discovery rules)
//   swift run sample-authorize-url --webfinger IDENTIFIER [--allow-host HOST:PORT]... ...
//       (WebFinger issuer discovery first, then as --issuer; only public hosts on port 443 unless --allow-host admits more)
//       [--response-mode jwt|query.jwt|fragment.jwt|form_post.jwt|query|fragment|form_post]
//       [--request-object signed|encrypted|signed+encrypted [--request-object-key PATH]]
//
// --request-object sends the request as a request object by value (JAR; needs --issuer): signed with the
// client's key (--request-object-key: a JWK or PEM private key; ES256/RS256/EdDSA from its type or its alg),
// and/or encrypted to the provider's current `use: enc` key from its jwks_uri.
//
// stdout: exactly one JSON object {"url": ..., "state": ..., "nonce": ..., "code_verifier": ...}
// (code_verifier is null for response types without code); with --webfinger it also has "issuer".
// Exit 2 on bad arguments (usage on stderr); exit 1 when the provider or a check refuses (WebFinger and
// discovery included, and webfinger_host_refused before any request for a host the fetch policy refuses),
// with the typed error code on stderr.
import Foundation
import JOSE
import OIDC
import SampleSupport

let usage = """
    usage: sample-authorize-url (--authorization-endpoint URL | --issuer URL | --webfinger IDENTIFIER)
                                --client-id ID --redirect-uri URI
                                [--scope "openid profile"] [--claims JSON] [--param NAME=VALUE]...
                                [--response-type "code"] [--limit NAME=MAX_CHARACTERS]...
                                [--authorization-details JSON]
                                [--profile entra|google|apple|keycloak|okta|auth0] [--audience A]
                                [--response-mode MODE] [--request-object signed|encrypted|signed+encrypted]
                                [--request-object-key PATH] [--allow-host HOST:PORT]...

      --param sets a provider-specific parameter; the standard names prompt, max_age, login_hint,
      id_token_hint, acr_values, ui_locales, claims_locales, display and response_mode are mapped
      to the request's typed properties (and checked). --limit caps a parameter's length.
      --issuer finds the authorization endpoint through discovery (the issuer is checked exactly, or by
      the rules of --profile). --audience adds the audience authorization parameter (Auth0, Okta).
      --authorization-details sends RFC 9396 authorization_details (a JSON array of objects with "type"),
      as compact JSON.
      --webfinger acct:user@host[:port], user@host or an https URL: asks https://HOST/.well-known/webfinger
      for the issuer (https only, loopback too; an http issuer is refused), then discovers it as --issuer.
      The identifier is the user's: the WebFinger host, the issuer it names and that issuer's endpoints must be
      public hosts on port 443 (no loopback, private or link-local address, checked by name resolution too),
      else webfinger_host_refused and no request is sent.
      --allow-host HOST:PORT (repeatable) admits that host on that port besides public ones, e.g. a local test
      provider: --allow-host 127.0.0.1:8443 ([::1]:8443 for IPv6).
      --ca-file FILE trusts this CA (PEM) for the provider's TLS instead of the machine's store.
    """

func fail(_ message: String, code: Int32 = 2) -> Never {
    FileHandle.standardError.write(Data("sample-authorize-url: \(message)\n".utf8))
    if code == 2 { FileHandle.standardError.write(Data((usage + "\n").utf8)) }
    exit(code)
}

struct Arguments {
    var endpoint: URL?
    var issuer: String?
    var webFinger: String?
    var caFile: String?
    var clientID: String?
    var redirectURI: URL?
    var scope = "openid"
    var claims: String?
    var responseType = ResponseType.code
    var parameters: [(String, String)] = []
    var limits: [String: Int] = [:]
    var authorizationDetails: String?
    var profile: ProviderProfile?
    var audience: String?
    var responseMode: ResponseMode?
    var requestObject: String?
    var requestObjectKey: String?
    var allowedHosts: Set<RemoteFetchPolicy.HostPort> = []
}

func nameValue(_ text: String, _ option: String) -> (String, String) {
    guard let equals = text.firstIndex(of: "="), equals != text.startIndex else { fail("\(option) needs NAME=VALUE") }
    return (String(text[..<equals]), String(text[text.index(after: equals)...]))
}

func parseArguments(_ argv: [String]) -> Arguments {
    var arguments = Arguments()
    var index = 0
    func value(_ option: String) -> String {
        index += 1
        guard index < argv.count else { fail("\(option) needs a value") }
        return argv[index]
    }
    while index < argv.count {
        let option = argv[index]
        switch option {
        case "--authorization-endpoint":
            guard let url = URL(string: value(option)), url.scheme != nil else { fail("--authorization-endpoint is not an absolute URL") }
            arguments.endpoint = url
        case "--client-id": arguments.clientID = value(option)
        case "--redirect-uri":
            guard let url = URL(string: value(option)), url.scheme != nil else { fail("--redirect-uri is not an absolute URI") }
            arguments.redirectURI = url
        case "--scope": arguments.scope = value(option)
        case "--claims": arguments.claims = value(option)
        case "--param": arguments.parameters.append(nameValue(value(option), option))
        case "--response-type":
            let text = value(option)
            guard let type = ResponseType(rawValue: text) else { fail("unknown response type '\(text)'") }
            arguments.responseType = type
        case "--limit":
            let (name, text) = nameValue(value(option), option)
            guard let limit = Int(text), limit >= 0 else { fail("--limit \(name) needs a non-negative number") }
            arguments.limits[name] = limit
        case "--issuer": arguments.issuer = value(option)
        case "--authorization-details": arguments.authorizationDetails = value(option)
        case "--profile":
            let name = value(option)
            guard let profile = ProviderProfile(name: name, tenants: .anyTenant, hostedDomains: .anyHostedDomain) else {
                fail("--profile takes entra, google, apple, keycloak, okta or auth0, not '\(name)'")
            }
            arguments.profile = profile
        case "--audience":
            guard arguments.audience == nil else { fail("--audience given twice") }
            arguments.audience = value(option)
        case "--response-mode":
            let text = value(option)
            guard let mode = ResponseMode(rawValue: text) else { fail("unknown response mode '\(text)'") }
            arguments.responseMode = mode
        case "--request-object":
            let text = value(option)
            guard ["signed", "encrypted", "signed+encrypted"].contains(text) else { fail("--request-object takes signed, encrypted or signed+encrypted") }
            arguments.requestObject = text
        case "--request-object-key": arguments.requestObjectKey = value(option)
        case "--webfinger": arguments.webFinger = value(option)
        case "--ca-file": arguments.caFile = value(option)
        case "--allow-host":
            let text = value(option)
            guard let host = try? RemoteFetchPolicy.HostPort(text) else { fail("--allow-host needs HOST:PORT (e.g. 127.0.0.1:8443), not '\(text)'") }
            arguments.allowedHosts.insert(host)
        case "-h", "--help":
            print(usage)
            exit(0)
        default:
            fail("unknown argument '\(option)'")
        }
        index += 1
    }
    return arguments
}

/// Standard parameters given with --param go to the typed properties, so they are checked
/// (e.g. prompt=none with another value) instead of being rejected as collisions.
func apply(_ name: String, _ value: String, to request: inout LoginRequest) throws {
    let words = value.split(separator: " ").map(String.init)
    switch name {
    case "prompt": request.prompt = words.map(Prompt.init(rawValue:))
    case "max_age":
        guard let seconds = Int(value) else { fail("max_age must be a number of seconds") }
        request.maxAge = seconds
    case "login_hint": request.loginHint = value
    case "id_token_hint": request.idTokenHint = value
    case "acr_values": request.acrValues = words
    case "ui_locales": request.uiLocales = words
    case "claims_locales": request.claimsLocales = words
    case "display":
        guard let display = Display(rawValue: value) else { fail("unknown display '\(value)'") }
        request.display = display
    case "response_mode":
        guard let mode = ResponseMode(rawValue: value) else { fail("unknown response_mode '\(value)'") }
        request.responseMode = mode
    default:
        guard request.additionalParameters[name] == nil else { fail("--param \(name) given twice") }
        request.additionalParameters[name] = value  // reserved names fail with parameter_collision
    }
}

/// The request object of --request-object: signed with the key at `keyPath` or unsigned, and/or encrypted to the
/// provider's current encryption key; sent by value.
func requestObject(mode: String, keyPath: String?) throws -> RequestObject.Configuration {
    let signature: RequestObject.Configuration.Signature
    if mode.hasPrefix("signed") {
        guard let keyPath else { fail("--request-object \(mode) needs --request-object-key PATH") }
        let text: String
        do { text = try String(contentsOfFile: keyPath, encoding: .utf8) } catch { fail("--request-object-key \(keyPath) cannot be read") }
        guard let key = try JWK.keys(fromFileText: text).first(where: \.isPrivate) else { fail("--request-object-key holds no private key") }
        let algorithm: JWSAlgorithm
        if let name = key.algorithm, let named = JWSAlgorithm(rawValue: name) {
            algorithm = named
        } else {
            switch key.keyType {
            case .ec(let curve): algorithm = curve.algorithm
            case .rsa: algorithm = .rs256
            case .ed25519: algorithm = .eddsa
            default: fail("--request-object-key: a \(key.keyType) key cannot sign a request object")
            }
        }
        signature = .signed(key: key, algorithm: algorithm)
    } else {
        signature = .unsignedWithoutClientProof
    }
    return RequestObject.Configuration(signature: signature, encryption: mode.hasSuffix("encrypted") ? RequestObject.Encryption() : nil)
}

/// A JSON string literal (RFC 8259 escaping), or `null`.
func jsonString(_ text: String?) -> String {
    guard let text else { return "null" }
    return JSONValue.string(text).jsonString()
}

let arguments = parseArguments(Array(CommandLine.arguments.dropFirst()))
guard [arguments.endpoint != nil, arguments.issuer != nil, arguments.webFinger != nil].filter({ $0 }).count == 1 else {
    fail("give one of --authorization-endpoint, --issuer and --webfinger")
}
/// URLSessionTransport, or with --ca-file the libssl transport trusting that CA (SampleTransport's rule).
let transport: any HTTPTransport
do {
    transport = try SampleTransport.make(caFile: arguments.caFile)
} catch {
    fail("--ca-file \(arguments.caFile ?? "") cannot be used: \(error)")
}
guard let clientID = arguments.clientID else { fail("--client-id is required") }
guard let redirectURI = arguments.redirectURI else { fail("--redirect-uri is required") }
if arguments.profile != nil, arguments.issuer == nil, arguments.webFinger == nil {
    fail("--profile goes with --issuer or --webfinger (its discovery rules)")
}
if !arguments.allowedHosts.isEmpty, arguments.webFinger == nil {
    fail("--allow-host goes with --webfinger (the hosts its fetch policy admits)")
}

do {
    // The front channel only (push: .never): this sample prints the URL with every parameter in it.
    var login = LoginRequest(
        redirectURI: redirectURI, scopes: arguments.scope.split(separator: " ").map(String.init),
        responseType: arguments.responseType, push: .never)
    if let claims = arguments.claims { login.claims = try ClaimsRequest.parse(claims) }
    for (name, value) in arguments.parameters { try apply(name, value, to: &login) }
    if let audience = arguments.audience {
        guard login.additionalParameters["audience"] == nil else { fail("--audience and --param audience=... given together") }
        login.additionalParameters["audience"] = audience
    }
    login.parameterLengthLimits = arguments.limits
    if let details = arguments.authorizationDetails { login.authorizationDetails = try AuthorizationDetail.parseArray(jsonText: details) }
    if let mode = arguments.responseMode { login.responseMode = mode }
    let url: URL
    var configuration = OIDCClient.Configuration()
    configuration.profile = arguments.profile
    // One client per provider: discovery once (WebFinger first, under the fetch policy, when given), then
    // startLogin binds the issuer (RFC 9207) to the login.
    var client: OIDCClient?
    do {
        if let identifier = arguments.webFinger {
            client = try await OIDCClient.discover(
                webFinger: identifier, authentication: .none(clientID: clientID), transport: transport,
                configuration: configuration,
                fetchPolicy: RemoteFetchPolicy(allowedHosts: arguments.allowedHosts))
        } else if let issuer = arguments.issuer {
            client = try await OIDCClient.discover(
                issuer: issuer, authentication: .none(clientID: clientID), transport: transport,
                configuration: configuration)
        }
    } catch let error as OIDCError {
        fail(error.description, code: 1)  // a refusal by the provider or a check, not a usage error
    }
    let issuer = client?.issuer
    // The request sent, for its state, nonce and verifier: the pending login's, or (a bare authorization
    // endpoint, no discovery) one built here with fresh secrets.
    let request: OAuthRequest
    if let mode = arguments.requestObject {
        guard client != nil else { fail("--request-object needs --issuer or --webfinger (the request object's audience and the provider's keys)") }
        login.requestObject = try requestObject(mode: mode, keyPath: arguments.requestObjectKey)
    }
    if let client {
        do {
            let pending = try await client.startLogin(login)
            (url, request) = (pending.url, pending.request)
        } catch let error as OIDCError {
            fail(error.description, code: 1)  // a refusal by the provider or a check, not a usage error
        }
    } else {
        request = try OAuthRequest(clientID: clientID, login: login)
        url = try request.authorizationURL(at: arguments.endpoint!)
    }
    print(
        "{\"url\": \(jsonString(url.absoluteString)), \"state\": \(jsonString(request.state.value)), "
            + "\"nonce\": \(jsonString(request.nonce?.value)), \"code_verifier\": \(jsonString(request.pkce?.verifier.value))"
            + (arguments.webFinger != nil ? ", \"issuer\": \(jsonString(issuer))" : "") + "}")
} catch let error as OIDCError {
    fail(error.description, code: error.code == .randomGenerationFailed ? 1 : 2)
} catch {
    fail("\(error)", code: 1)
}
