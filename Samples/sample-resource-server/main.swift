// sample-resource-server: the check an API does on the access token of each request.
//
//   swift run sample-resource-server --issuer URL --audience AUD
//       [--introspect --client-id ID --client-secret SECRET] [--require-scope S]...
//       [--client-cert FILE] [--ca-file FILE]
//
// Reads one access token on standard input. Without --introspect it is validated locally as an
// RFC 9068 JWT access token (signature with the issuer's keys from discovery, typ at+jwt, iss,
// aud = AUD, exp, iat, client_id, sub, jti); with --introspect it is sent to the issuer's
// introspection endpoint (RFC 7662, client_secret_basic) and must be active, current and, when
// the answer has an aud, for AUD. Every --require-scope must be granted. Prints one JSON object:
//   {"active": true|false, "sub": ..., "client_id": ..., "scope": [...], "cnf": {...}|null}
// --client-cert FILE: the PEM certificate the request was made with (what a TLS server hands over);
// a certificate-bound token (cnf.x5t#S256, RFC 8705) is accepted only with the matching certificate,
// and refused without it or with another. --ca-file FILE: the CA for the issuer's TLS (discovery and keys).
// Exit 0 for a valid token, 1 for an invalid one (the typed reason and the RFC 6750 challenge on
// standard error), 2 on usage errors.
import Foundation
import JOSE
import OIDC
import OIDCNetworking
import OIDCResourceServer
import OIDCTLSTransport

func usage(_ message: String) -> Never {
    FileHandle.standardError.write(Data("sample-resource-server: \(message)\nusage: sample-resource-server --issuer URL --audience AUD [--introspect --client-id ID --client-secret SECRET] [--require-scope S]... [--client-cert FILE] [--ca-file FILE]\n".utf8))
    exit(2)
}

func output(active: Bool, subject: String?, clientID: String?, scopes: Set<String>, confirmation: TokenConfirmation? = nil) {
    var object = JSONObject()
    object["active"] = .bool(active)
    object["sub"] = subject.map { .string($0) } ?? .null
    object["client_id"] = clientID.map { .string($0) } ?? .null
    object["scope"] = .array(scopes.sorted().map { .string($0) })
    if let confirmation {
        var cnf = JSONObject()
        if let jkt = confirmation.jwkThumbprint { cnf["jkt"] = .string(jkt) }
        if let x5t = confirmation.certificateThumbprint { cnf["x5t#S256"] = .string(x5t) }
        object["cnf"] = .object(cnf)
    } else {
        object["cnf"] = .null
    }
    print(JSONValue.object(object).jsonString())
}

var values: [String: String] = [:]
var requiredScopes: Set<String> = []
var introspect = false
var arguments = CommandLine.arguments.dropFirst()
while let flag = arguments.popFirst() {
    switch flag {
    case "--introspect":
        introspect = true
    case "--require-scope":
        guard let scope = arguments.popFirst(), !scope.isEmpty else { usage("--require-scope needs a value") }
        requiredScopes.insert(scope)
    case "--issuer", "--audience", "--client-id", "--client-secret", "--client-cert", "--ca-file":
        guard let value = arguments.popFirst() else { usage("\(flag) needs a value") }
        guard values[flag] == nil else { usage("\(flag) is given twice") }
        values[flag] = value
    default:
        usage("unknown argument \(flag)")
    }
}
guard let issuer = values["--issuer"], let audience = values["--audience"] else { usage("--issuer and --audience are required") }
if introspect, values["--client-id"] == nil || values["--client-secret"] == nil {
    usage("--introspect needs --client-id and --client-secret")
}
if !introspect, values["--client-id"] != nil || values["--client-secret"] != nil {
    usage("--client-id and --client-secret go with --introspect")
}
let input = String(decoding: FileHandle.standardInput.readDataToEndOfFile(), as: UTF8.self)
let token = input.trimmingCharacters(in: .whitespacesAndNewlines)
guard !token.isEmpty, !token.contains(where: \.isWhitespace) else { usage("standard input must hold exactly one access token") }

let clientCertificate: ClientCertificate
if let path = values["--client-cert"] {
    do {
        clientCertificate = try ClientCertificate(pem: String(contentsOfFile: path, encoding: .utf8))
    } catch {
        usage("--client-cert \(path): not a readable PEM certificate (\(error))")
    }
} else {
    clientCertificate = .notPresented
}
// With --ca-file the issuer is reached over the libssl transport trusting only that CA (the machine's
// trust store is set globally); otherwise over URLSession.
let transport: any HTTPTransport
if let caFile = values["--ca-file"] {
    do { transport = try LibSSLTransport(serverTrust: .caFile(caFile)) } catch { usage("--ca-file \(caFile): \(error)") }
} else {
    transport = URLSessionTransport()
}
let discovery = Discovery(transport: transport)
do {
    if introspect {
        let metadata = try await discovery.metadata(for: issuer)
        guard let endpoint = metadata.introspectionEndpoint else {
            throw OIDCError(.discoveryMissingField, "the provider has no introspection_endpoint")
        }
        let introspector = try TokenIntrospector(
            endpoint: endpoint, authentication: .clientSecretBasic(clientID: values["--client-id"] ?? "", secret: values["--client-secret"] ?? ""),
            transport: transport, audience: .contains(audience))
        let info = try await introspector.validate(token, requiredScopes: requiredScopes)
        // RFC 8705 §3.2: a certificate-bound token only with the certificate the request was made with.
        let confirmation = try info.confirmation
        if confirmation?.jwkThumbprint != nil {
            throw OIDCError(.dpopBoundTokenAsBearer, "the introspected token is bound to a DPoP key (cnf.jkt) and was presented as Bearer")
        }
        try confirmation?.requireCertificate(clientCertificate)
        output(active: true, subject: info.subject, clientID: info.clientID, scopes: info.scopes, confirmation: confirmation)
    } else {
        let validator = try await AccessTokenValidator.discover(issuer: issuer, audience: audience, discovery: discovery,
                                                                keyCaches: JWKSetCacheRegistry(transport: transport))
        // The request as the API received it: the token as Bearer, and the TLS client certificate, if any.
        let presented = try await validator.validate(method: "GET", url: URL(string: audience) ?? URL(fileURLWithPath: "/"),
                                                     headers: ["Authorization": "Bearer " + token], requiredScopes: requiredScopes,
                                                     clientCertificate: clientCertificate)
        let accessToken = presented.token
        output(active: true, subject: accessToken.subject, clientID: accessToken.clientID, scopes: accessToken.scopes,
               confirmation: accessToken.confirmation)
    }
} catch let error as OIDCError {
    let challenge = BearerChallenge(error: error, requiredScopes: requiredScopes)
    FileHandle.standardError.write(Data("sample-resource-server: \(error)\nHTTP \(challenge.status), WWW-Authenticate: \(challenge.headerValue)\n".utf8))
    output(active: false, subject: nil, clientID: nil, scopes: [])
    exit(1)
} catch {
    FileHandle.standardError.write(Data("sample-resource-server: \(error)\n".utf8))
    output(active: false, subject: nil, clientID: nil, scopes: [])
    exit(1)
}
