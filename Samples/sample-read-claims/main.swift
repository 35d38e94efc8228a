import OIDC

// Reads the standard and non-standard claims of an ID Token, in the three ways
// the OIDC module offers: by name, through your own CodingKey enum, and by
// decoding the whole payload into your own Decodable type.
//
//   swift run sample-read-claims                 # the built-in demo token (offline)
//   swift run sample-read-claims TOKEN           # a token of yours
//   some-command | swift run sample-read-claims -   # a token on stdin
//
// It only parses: it does not verify the signature (see IDTokenValidator for that).
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

/// The caller's own keys for non-standard claims.
enum Keys: String, CodingKey {
    case session_state
}

/// The caller's own view of the whole payload.
struct MyClaims: Decodable {
    struct Aka: Decodable {
        let portToken: String?
        let previousCarrier: String?
        enum CodingKeys: String, CodingKey {
            case portToken = "port_token"
            case previousCarrier = "previous_carrier"
        }
    }
    let sub: String
    let cmiInstanceId: String?
    let aka: Aka?
}

func readToken() -> (token: String, source: String) {
    let arguments = Array(CommandLine.arguments.dropFirst())
    if arguments.contains("-h") || arguments.contains("--help") {
        print("usage: sample-read-claims [TOKEN | -]   (no argument: the built-in demo token; '-': read stdin)")
        exit(0)
    }
    if let first = arguments.first, first != "-" {
        return (first, "the command line")
    }
    if arguments.first == "-" {
        var text = ""
        while let line = readLine() { text += line }
        return (text, "stdin")
    }
    return (demoIDToken, "the built-in demo token")
}

func show(_ label: String, _ value: Any?) {
    print("  \(label + String(repeating: " ", count: max(0, 24 - label.count))) \(value.map { "\($0)" } ?? "(absent)")")
}

func shorten(_ text: String) -> String { text.count > 24 ? String(text.prefix(20)) + "…(\(text.count) chars)" : text }

let (token, source) = readToken()
let trimmed = token.filter { !$0.isWhitespace }
do {
    let idToken = try IDToken(trimmed)
    print("ID Token from \(source): \(idToken) — NOT verified, claims read only\n")

    print("Standard claims (typed properties):")
    show("iss", idToken.issuer)
    show("sub", idToken.subject)
    show("aud", idToken.audience)
    show("exp", idToken.expiresAt)
    show("iat", idToken.issuedAt)
    show("auth_time", idToken.authTime)
    show("nonce", idToken.nonce)
    show("name", idToken.name)
    show("email", idToken.email)
    show("email_verified", idToken.emailVerified)
    show("locale", idToken.locale)
    show("address.locality", idToken.address?.locality)

    print("\n1. By name:")
    let cmi = try idToken.claim("cmiInstanceId", as: String.self)
    show("cmiInstanceId", cmi)
    let port = try idToken.claim(path: ["aka", "port_token"], as: String.self)
    show("aka.port_token", port.map(shorten))

    print("\n2. Through your CodingKey enum:")
    let s: String? = try idToken.get(parameter: Keys.session_state)
    show("session_state", s)

    print("\n3. Decoding the whole payload into your type:")
    let mine = try idToken.decode(MyClaims.self)
    show("sub", mine.sub)
    show("cmiInstanceId", mine.cmiInstanceId)
    show("aka.previous_carrier", mine.aka?.previousCarrier)
    show("aka.port_token", mine.aka?.portToken.map(shorten))

    print("\nA claim read with the wrong type is a typed error naming the claim:")
    do {
        _ = try idToken.claim("cmiInstanceId", as: Int.self)
    } catch let error as OIDCError {
        print("  \(error)")
    }
} catch let error as OIDCError {
    print("cannot read the token: \(error)")
    exit(1)
}
