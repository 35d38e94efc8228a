// sample-register: registers a client at a provider (RFC 7591, OpenID Connect Dynamic Client Registration 1.0).
//
//   swift run sample-register --issuer URL --redirect-uri URI [--redirect-uri URI]... [--jwks FILE]
//       [--auth-method M] [--initial-access-token T] [--metadata JSON] [--show-secrets] [--ca-file FILE]
//
// stdout: exactly one JSON object, the provider's answer, with client_secret and registration_access_token
// as "<redacted>" unless --show-secrets. The initial access token is never printed; the private members of
// a --jwks file are never sent. Exit 1 with `sample-register: CODE: message` when the provider refuses
// (CODE: its RFC 7591 error code, e.g. invalid_redirect_uri) or another check fails; 2 on usage errors.
import Foundation
import JOSE
import OIDC
import SampleSupport

let usage = """
    usage: sample-register --issuer URL --redirect-uri URI [--redirect-uri URI]... [--jwks FILE]
                           [--auth-method METHOD] [--initial-access-token TOKEN] [--metadata JSON]
                           [--show-secrets] [--ca-file FILE]

      --jwks FILE       a JWK, JWK Set or PEM key; only its public members are registered (jwks).
      --auth-method     token_endpoint_auth_method (client_secret_basic, client_secret_post,
                        client_secret_jwt, private_key_jwt, none, ...).
      --metadata JSON   a JSON object of any other client metadata (the typed options win).
      --ca-file FILE    trust this CA (PEM) for the provider's TLS instead of the machine's store.
    """

func fail(_ message: String, code: Int32 = 2) -> Never {
    FileHandle.standardError.write(Data("sample-register: \(message)\n".utf8))
    if code == 2 { FileHandle.standardError.write(Data((usage + "\n").utf8)) }
    exit(code)
}

struct Arguments {
    var issuer: String?
    var redirectURIs: [URL] = []
    var jwksFile: String?
    var authMethod: String?
    var initialAccessToken: String?
    var metadata: String?
    var showSecrets = false
    var caFile: String?
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
        case "--issuer": arguments.issuer = value(option)
        case "--redirect-uri":
            guard let url = URL(string: value(option)), url.scheme != nil else { fail("--redirect-uri is not an absolute URI") }
            arguments.redirectURIs.append(url)
        case "--jwks": arguments.jwksFile = value(option)
        case "--auth-method": arguments.authMethod = value(option)
        case "--initial-access-token": arguments.initialAccessToken = value(option)
        case "--metadata": arguments.metadata = value(option)
        case "--show-secrets": arguments.showSecrets = true
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

/// The keys of a JWK, JWK Set or PEM file (private or public; only public members are registered).
func loadKeys(_ path: String) -> [JWK] {
    guard let data = FileManager.default.contents(atPath: path), let text = String(data: data, encoding: .utf8) else {
        fail("--jwks \(path) cannot be read")
    }
    do {
        if text.drop(while: { $0.isWhitespace }).first == "{" {
            let object = try JSONParser.parseObject(Array(text.utf8), what: "--jwks")
            if object["keys"] != nil { return try JWKSet(json: text).keys }
            return [try JWK(json: text)]
        }
        return [try JWK(pem: text)]
    } catch {
        fail("--jwks \(path) is not a JWK, JWK Set or PEM key: \(error)")
    }
}

let arguments = parseArguments(Array(CommandLine.arguments.dropFirst()))
guard let issuer = arguments.issuer else { fail("--issuer is required") }
guard !arguments.redirectURIs.isEmpty else { fail("--redirect-uri is required") }
/// URLSessionTransport, or with --ca-file the libssl transport trusting that CA (SampleTransport's rule).
let transport: any HTTPTransport
do {
    transport = try SampleTransport.make(caFile: arguments.caFile)
} catch {
    fail("--ca-file \(arguments.caFile ?? "") cannot be used: \(error)")
}

var extra = JSONObject()
if let text = arguments.metadata {
    do {
        extra = try JSONParser.parseObject(Array(text.utf8), what: "--metadata")
    } catch {
        fail("--metadata is not a JSON object: \(error)")
    }
}
var metadata = ClientMetadata(redirectURIs: arguments.redirectURIs, extra: extra)
// Members of --metadata that have a typed option stay as given unless the option is used.
if let method = arguments.authMethod { metadata.tokenEndpointAuthMethod = method; metadata.extra["token_endpoint_auth_method"] = nil }
if let file = arguments.jwksFile { metadata.jwks = loadKeys(file); metadata.extra["jwks"] = nil }

do {
    let provider = try await Discovery.fetch(issuer: issuer, transport: transport)
    let registrar = try ClientRegistrar(metadata: provider, transport: transport)
    let registration = try await registrar.register(metadata, initialAccessToken: arguments.initialAccessToken)
    print((arguments.showSecrets ? registration.answer : registration.redactedAnswer).jsonString())
} catch let error as OIDCError {
    let code = error.code == .registrationRefused ? error.oauthError?.error ?? error.code.rawValue : error.code.rawValue
    let message = String((error.oauthError?.errorDescription ?? error.reason).unicodeScalars.map { $0.value < 0x20 || $0.value == 0x7F ? " " : Character($0) })
    fail("\(code): \(message)", code: 1)
} catch {
    fail("\(error)", code: 1)
}
