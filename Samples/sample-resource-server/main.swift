// sample-resource-server: the check an API does on the access token of each request.
//
//   swift run sample-resource-server --issuer URL --audience AUD
//       [--introspect --client-id ID --client-secret SECRET] [--require-scope S]...
//       [--client-cert FILE] [--ca-file FILE] [--require-authorization-details-type TYPE]...
//       [--profile keycloak --allowed-client ID...]
//
// Reads one access token on standard input. Without --introspect it is validated locally as an
// RFC 9068 JWT access token (signature with the issuer's keys from discovery, typ at+jwt, iss,
// aud = AUD, exp, iat, client_id, sub, jti); with --introspect it is sent to the issuer's
// introspection endpoint (RFC 7662, client_secret_basic) and must be active, current and, when
// the answer has an aud, for AUD. With --profile keycloak, Keycloak's access tokens (typ JWT, payload typ
// Bearer) are accepted when aud contains AUD or azp is an --allowed-client, and client_id is azp when the
// token has none. Every --require-scope must be granted. Prints one JSON object:
//   {"active": true|false, "sub": ..., "client_id": ..., "scope": [...], "cnf": {...}|null}
// plus "authorization_details": [...] when the token carries RFC 9396 details; every
// --require-authorization-details-type must be among their types (else exit 1).
// --client-cert FILE: the PEM certificate the request was made with (what a TLS server hands over);
// a certificate-bound token (cnf.x5t#S256, RFC 8705) is accepted only with the matching certificate,
// and refused without it or with another. --ca-file FILE: the CA for the issuer's TLS (discovery and keys).
// Exit 0 for a valid token, 1 for an invalid one (the typed reason and the RFC 6750 challenge on
// standard error), 2 on usage errors.
import Foundation
import JOSE
import OIDC
import OIDCResourceServer
import SampleSupport

func usage(_ message: String) -> Never {
    FileHandle.standardError.write(
        Data(
            "sample-resource-server: \(message)\nusage: sample-resource-server --issuer URL --audience AUD [--introspect --client-id ID --client-secret SECRET] [--require-scope S]... [--require-authorization-details-type TYPE]... [--client-cert FILE] [--ca-file FILE] [--profile keycloak --allowed-client ID...]\n"
                .utf8))
    exit(2)
}

func output(
    active: Bool, subject: String?, clientID: String?, scopes: Set<String>, confirmation: TokenConfirmation? = nil,
    details: [AuthorizationDetail]? = nil
) {
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
    if let details { object["authorization_details"] = AuthorizationDetail.jsonValue(details) }
    print(JSONValue.object(object).jsonString())
}

var values: [String: String] = [:]
var requiredScopes: Set<String> = []
var requiredDetailTypes: [String] = []
var introspect = false
var keycloak = false
var allowedClients: Set<String> = []
var arguments = CommandLine.arguments.dropFirst()
while let flag = arguments.popFirst() {
    switch flag {
    case "--introspect":
        introspect = true
    case "--profile":
        guard let name = arguments.popFirst() else { usage("--profile needs a value") }
        guard name == "keycloak" else { usage("--profile takes keycloak (the access-token profile), not \(name)") }
        keycloak = true
    case "--allowed-client":
        guard let client = arguments.popFirst(), !client.isEmpty else { usage("--allowed-client needs a value") }
        allowedClients.insert(client)
    case "--require-scope":
        guard let scope = arguments.popFirst(), !scope.isEmpty else { usage("--require-scope needs a value") }
        requiredScopes.insert(scope)
    case "--require-authorization-details-type":
        guard let type = arguments.popFirst(), !type.isEmpty else { usage("--require-authorization-details-type needs a value") }
        requiredDetailTypes.append(type)
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
if !allowedClients.isEmpty, !keycloak { usage("--allowed-client goes with --profile keycloak") }
if keycloak, introspect { usage("--profile keycloak validates JWTs locally; it does not go with --introspect") }
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
// trust store is set globally); otherwise over URLSession (SampleTransport's rule).
let transport: any HTTPTransport
do { transport = try SampleTransport.make(caFile: values["--ca-file"]) } catch { usage("--ca-file \(values["--ca-file"] ?? ""): \(error)") }
// The front door: discovery from the issuer, JWT access tokens (or introspection), one call per request.
var configuration = ResourceGuard.Configuration(issuer: issuer, audience: audience)
configuration.transport = transport
if introspect {
    configuration.tokens = .introspection(
        .init(
            authentication: .clientSecretBasic(
                clientID: values["--client-id"] ?? "",
                secret: values["--client-secret"] ?? "")))
}
if keycloak { configuration.profile = .keycloak(allowedClients: allowedClients) }
let frontDoor: ResourceGuard
do {
    frontDoor = try await ResourceGuard(configuration: configuration)
} catch {
    FileHandle.standardError.write(Data("sample-resource-server: \(error)\n".utf8))
    output(active: false, subject: nil, clientID: nil, scopes: [])
    exit(1)
}
// The request as the API received it: the token as Bearer, and the TLS client certificate, if any. The token's (or the
// answer's) cnf is enforced by the call: cnf.jkt refused as Bearer, cnf.x5t#S256 only with that certificate (RFC 8705 §3).
switch await frontDoor.check(
    method: "GET", url: URL(string: audience) ?? URL(fileURLWithPath: "/"),
    headers: ["Authorization": "Bearer " + token], requiredScopes: requiredScopes,
    clientCertificate: clientCertificate)
{
case .allowed(let accessToken):
    do {
        if !requiredDetailTypes.isEmpty { try accessToken.requireAuthorizationDetails(types: requiredDetailTypes) }
        output(
            active: true, subject: accessToken.subject, clientID: accessToken.clientID, scopes: accessToken.scopes,
            confirmation: accessToken.confirmation, details: try accessToken.authorizationDetails)
    } catch {
        // A valid token without the grant the resource needs: 403 (RFC 9396 §9, RFC 6750 §3.1).
        let challenge = ResourceChallenge(scheme: .bearer, error: .insufficientScope, errorDescription: (error as? OIDCError)?.reason, scope: requiredScopes)
        FileHandle.standardError.write(Data("sample-resource-server: \(error)\nHTTP 403, WWW-Authenticate: \(challenge.headerValue)\n".utf8))
        output(active: false, subject: nil, clientID: nil, scopes: [])
        exit(1)
    }
case .refused(let refusal):
    let challenge = refusal.challenges.first.map { ", WWW-Authenticate: \($0.headerValue)" } ?? ""
    FileHandle.standardError.write(Data("sample-resource-server: \(refusal.cause)\nHTTP \(refusal.status)\(challenge)\n".utf8))
    output(active: false, subject: nil, clientID: nil, scopes: [])
    exit(1)
}
