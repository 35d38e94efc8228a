import OIDC
import OIDCNetworking

// Verifies the `port_token` a new carrier's ID Token carries in its `aka` claim
// after an account migration: a token signed by the previous carrier, accepted
// only when its issuer is one you trust.
//
//   swift run sample-port-token --trusted-issuer https://old-carrier.example --jwks Keys/p256.pub.jwk
//       (offline, with the built-in demo ID Token; --jwks takes a JWK Set or a single JWK,
//        for the single trusted issuer, or ISSUER=FILE for several)
//   swift run sample-port-token --trusted-issuer URL [--trusted-issuer URL ...] [--audience AUD] [--jwks ...] TOKEN|-
//
// TOKEN is either the port_token itself or an ID Token carrying `aka.port_token`.
// Without --jwks (online mode) each trusted issuer's keys are found through its discovery
// document and jwks_uri over the network (URLSessionTransport; https, or http on loopback).
// Without --audience any audience is accepted (ExpectedAudience.anyAudience, stated explicitly).
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

func fail(_ message: String, code: Int32 = 2) -> Never {
    print(message)
    exit(code)
}

let usage = """
    usage: sample-port-token --trusted-issuer URL [--trusted-issuer URL ...] [--jwks FILE | --jwks ISSUER=FILE ...]
                             [--audience AUD] [TOKEN | -]
      TOKEN: a port_token, or an ID Token with aka.port_token (default: the built-in demo ID Token; '-': stdin)
    """

var trusted: [String] = []
var jwksArguments: [String] = []
var audience: String?
var tokenArgument: String?
var arguments = Array(CommandLine.arguments.dropFirst())
while !arguments.isEmpty {
    let argument = arguments.removeFirst()
    switch argument {
    case "--trusted-issuer", "--jwks", "--audience":
        guard !arguments.isEmpty else { fail("\(argument) needs a value\n\(usage)") }
        let value = arguments.removeFirst()
        if argument == "--trusted-issuer" { trusted.append(value) } else if argument == "--jwks" { jwksArguments.append(value) } else { audience = value }
    case "-h", "--help":
        fail(usage, code: 0)
    default:
        guard tokenArgument == nil else { fail("only one token, please\n\(usage)") }
        tokenArgument = argument
    }
}
guard !trusted.isEmpty else { fail("at least one --trusted-issuer is required\n\(usage)") }

var token: String
switch tokenArgument {
case nil:
    token = demoIDToken
    print("(using the built-in demo ID Token)")
case "-"?:
    token = ""
    while let line = readLine() { token += line }
case let given?:
    token = given
}
token = token.filter { !$0.isWhitespace }

func readText(_ path: String) -> String {
    guard let data = try? Data(contentsOf: URL(fileURLWithPath: path)) else { fail("cannot read \(path)") }
    return String(decoding: data, as: UTF8.self)
}

// The port_token: the token itself, or the aka.port_token of an ID Token.
let portToken: String
do {
    let outer = try IDToken(token)
    if let inner = try ForeignTokenValidator.portToken(in: outer) {
        print("read aka.port_token from the ID Token of \(outer.issuer ?? "(no iss)") — the outer token is not verified here")
        portToken = inner
    } else {
        portToken = token
    }
} catch {
    fail("cannot read the token: \(error)", code: 1)
}

let verifier: ForeignTokenValidator
if jwksArguments.isEmpty {
    // Online mode: each trusted issuer's discovery document, then its jwks_uri (cached, rotation followed).
    print("(online: keys from each trusted issuer's discovery document and jwks_uri)")
    verifier = ForeignTokenValidator(trustedIssuers: Set(trusted), transport: URLSessionTransport())
} else {
    var documents: [String: String] = [:]
    for argument in jwksArguments {
        if let equals = argument.firstIndex(of: "="), argument[..<equals].contains("://") {
            documents[String(argument[..<equals])] = readText(String(argument[argument.index(after: equals)...]))
        } else {
            guard trusted.count == 1 else { fail("with several trusted issuers, use --jwks ISSUER=FILE") }
            documents[trusted[0]] = readText(argument)
        }
    }
    for issuer in documents.keys where !trusted.contains(issuer) {
        fail("--jwks names \(issuer), which is not a --trusted-issuer")
    }
    do {
        verifier = try ForeignTokenValidator(trustedKeyDocuments: documents)
    } catch {
        fail("cannot use the --jwks files: \(error)")
    }
}

do {
    let verified = try await verifier.validate(portToken, audience: audience.map(ExpectedAudience.contains) ?? .anyAudience)
    print("port_token VERIFIED")
    print("  issuer (previous carrier)  \(verified.issuer ?? "-")")
    print("  subject there              \(verified.subject ?? "-")")
    print("  audience                   \(verified.audience)")
    print("  expires                    \(verified.expiresAt.map { "\($0)" } ?? "-")")
    if let msisdn = try verified.claim("msisdn", as: String.self) { print("  msisdn                     \(msisdn)") }
} catch let error as OIDCError {
    fail("port_token REJECTED: \(error)", code: 1)
}
