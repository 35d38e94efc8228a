// sample-authorize-url: builds an authorization URL with fresh state, nonce and PKCE.
//
//   swift run sample-authorize-url --authorization-endpoint URL --client-id ID --redirect-uri URI
//       [--scope "openid profile"] [--claims JSON] [--param NAME=VALUE]... [--response-type TYPE]
//       [--limit NAME=N]...
//   swift run sample-authorize-url --issuer URL ...      (discovery: an OIDCClient starts the login)
//   swift run sample-authorize-url --webfinger IDENTIFIER ...   (WebFinger issuer discovery first, then as --issuer)
//
// stdout: exactly one JSON object {"url": ..., "state": ..., "nonce": ..., "code_verifier": ...}
// (code_verifier is null for response types without code); with --webfinger it also has "issuer".
// Exit 2 on bad arguments (usage on stderr); exit 1 when WebFinger refuses (e.g. an http issuer).
import Foundation
import JOSE
import OIDC
import OIDCNetworking

let usage = """
    usage: sample-authorize-url (--authorization-endpoint URL | --issuer URL | --webfinger IDENTIFIER)
                                --client-id ID --redirect-uri URI
                                [--scope "openid profile"] [--claims JSON] [--param NAME=VALUE]...
                                [--response-type "code"] [--limit NAME=MAX_CHARACTERS]...

      --param sets a provider-specific parameter; the standard names prompt, max_age, login_hint,
      id_token_hint, acr_values, ui_locales, claims_locales, display and response_mode are mapped
      to the request's typed properties (and checked). --limit caps a parameter's length.
      --issuer finds the authorization endpoint through discovery (the issuer is checked exactly).
      --webfinger acct:user@host[:port], user@host or an https URL: asks https://HOST/.well-known/webfinger
      for the issuer (https only, loopback too; an http issuer is refused), then discovers it as --issuer.
      --ca-file FILE trusts this CA for the provider's TLS (not supported by URLSessionTransport on Linux).
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
        case "--webfinger": arguments.webFinger = value(option)
        case "--ca-file": arguments.caFile = value(option)
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
func apply(_ name: String, _ value: String, to request: inout OAuthRequest) throws {
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

/// A JSON string literal (RFC 8259 escaping), or `null`.
func jsonString(_ text: String?) -> String {
    guard let text else { return "null" }
    return JSONValue.string(text).jsonString()
}

let arguments = parseArguments(Array(CommandLine.arguments.dropFirst()))
guard [arguments.endpoint != nil, arguments.issuer != nil, arguments.webFinger != nil].filter({ $0 }).count == 1 else {
    fail("give one of --authorization-endpoint, --issuer and --webfinger")
}
if arguments.caFile != nil {
    // URLSessionTransport on Linux (libcurl through FoundationNetworking) cannot be given a CA of its own.
    fail("--ca-file is not supported by this build's transport (URLSessionTransport)")
}
guard let clientID = arguments.clientID else { fail("--client-id is required") }
guard let redirectURI = arguments.redirectURI else { fail("--redirect-uri is required") }

do {
    var request = try OAuthRequest(clientID: clientID, redirectURI: redirectURI, responseType: arguments.responseType,
                                   scopes: arguments.scope.split(separator: " ").map(String.init))
    if let claims = arguments.claims { request.claims = try ClaimsRequest.parse(claims) }
    for (name, value) in arguments.parameters { try apply(name, value, to: &request) }
    request.parameterLengthLimits = arguments.limits
    let url: URL
    var issuer = arguments.issuer
    if let identifier = arguments.webFinger {
        do {
            issuer = try await WebFinger.issuer(for: identifier, transport: URLSessionTransport())
        } catch let error as OIDCError {
            fail(error.description, code: 1)
        }
    }
    if let issuer {
        // One client per provider: discovery once, then startLogin binds the issuer (RFC 9207) to the login.
        let client = try await OIDCClient.discover(issuer: issuer, authentication: .none(clientID: clientID),
                                                   transport: URLSessionTransport())
        url = try client.startLogin(request).url
    } else {
        url = try request.authorizationURL(at: arguments.endpoint!)
    }
    print("{\"url\": \(jsonString(url.absoluteString)), \"state\": \(jsonString(request.state.value)), "
        + "\"nonce\": \(jsonString(request.nonce?.value)), \"code_verifier\": \(jsonString(request.pkce?.verifier.value))"
        + (arguments.webFinger != nil ? ", \"issuer\": \(jsonString(issuer))" : "") + "}")
} catch let error as OIDCError {
    fail(error.description, code: error.code == .randomGenerationFailed ? 1 : 2)
} catch {
    fail("\(error)", code: 1)
}
