// jose-leak-check: one long loop of verifications, signings, key parses and
// failed parses in a single process, printing the resident set size at
// 10^3, 10^4, 10^5 and 10^6 iterations (or up to --iterations N).
//
//   swift run -c release jose-leak-check [--keys DIR] [--iterations N] [--max-growth-kb KB]
//
// Iteration i runs step i mod 16 (so 10^6 iterations run each step 62 500
// times). Exit status 1 when the RSS grew by more than --max-growth-kb
// (default 4096) between 10^4 iterations and the end.
// A measuring tool, not library code: its report goes to standard output, and its
// only inputs are its own flags and the repository's Keys/ (errors exit 2).
import Foundation
import JOSE

struct Options {
    var keys = "Keys"
    var iterations = 1_000_000
    var maxGrowthKB = 4096
}

func parseOptions() -> Options? {
    var options = Options()
    var arguments = CommandLine.arguments.dropFirst()
    while let flag = arguments.popFirst() {
        guard let value = arguments.popFirst() else { return nil }
        switch flag {
        case "--keys": options.keys = value
        case "--iterations": guard let n = Int(value), n > 0 else { return nil }; options.iterations = n
        case "--max-growth-kb": guard let n = Int(value), n >= 0 else { return nil }; options.maxGrowthKB = n
        default: return nil
        }
    }
    return options
}

/// The current resident set size in KiB, from /proc/self/status.
func residentKB() -> Int {
    guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return -1 }
    for line in status.split(separator: "\n") where line.hasPrefix("VmRSS:") {
        return Int(line.split(separator: " ").dropFirst().first ?? "") ?? -1
    }
    return -1
}

/// The loop's steps: each either succeeds or fails in the expected way.
func makeSteps(keysDirectory: String) throws -> [() -> Bool] {
    func read(_ name: String) throws -> String { try String(contentsOfFile: "\(keysDirectory)/\(name)", encoding: .utf8) }
    let rsaPEM = try read("rsa2048.pem"), rsaPublicPEM = try read("rsa2048.pub.pem")
    let ecJWK = try read("p256.jwk"), edPEM = try read("ed25519.pem"), hmacJWK = try read("hmac.jwk")
    let certificate = try read("rsa2048.cert.pem"), jwks = try read("jwks.json")
    let rsa = try JWK(pem: rsaPEM), ec = try JWK(json: ecJWK), ed = try JWK(pem: edPEM), hmac = try JWK(json: hmacJWK)
    let claims: JSONObject = ["sub": "leak-check", "iss": "https://issuer.example", "exp": 4_102_444_800]
    let rsToken = try JWT.sign(claims, key: rsa, algorithm: .rs256)
    let psToken = try JWT.sign(claims, key: rsa, algorithm: .ps256)
    let esToken = try JWT.sign(claims, key: ec, algorithm: .es256)
    let edToken = try JWT.sign(claims, key: ed, algorithm: .eddsa)
    let hsToken = try JWT.sign(claims, key: hmac, algorithm: .hs256)
    let rsaPublic = try JWK(pem: rsaPublicPEM), ecPublic = ec.publicKey, edPublic = ed.publicKey
    var tampered = Array(rsToken.utf8)
    tampered[tampered.count - 5] = tampered[tampered.count - 5] == UInt8(ascii: "A") ? UInt8(ascii: "B") : UInt8(ascii: "A")
    let tamperedToken = String(decoding: tampered, as: UTF8.self)
    let options = JWTValidationPolicy(leeway: 60)

    func succeeds(_ body: () throws -> Void) -> Bool { (try? body()) != nil }
    func fails(_ body: () throws -> Void) -> Bool { (try? body()) == nil }
    return [
        { succeeds { _ = try JWT.verifyIgnoringIssuerAndAudience(rsToken, key: rsaPublic, validation: options).claims.subject } },
        { succeeds { _ = try JWT.verifyIgnoringIssuerAndAudience(psToken, key: rsaPublic, validation: options) } },
        { succeeds { _ = try JWT.verifyIgnoringIssuerAndAudience(esToken, key: ecPublic, validation: options) } },
        { succeeds { _ = try JWT.verifyIgnoringIssuerAndAudience(edToken, key: edPublic, validation: options) } },
        { succeeds { _ = try JWT.verifyIgnoringIssuerAndAudience(hsToken, key: hmac, validation: options) } },
        { succeeds { _ = try JWT.sign(claims, key: ec, algorithm: .es256) } },
        { succeeds { _ = try JWK(pem: rsaPublicPEM) } },
        { succeeds { _ = try JWK(json: ecJWK) } },
        { succeeds { _ = try JWK(pem: certificate) } },
        { succeeds { _ = try JWKSet(json: jwks) } },
        { fails { _ = try JWT.verifyIgnoringIssuerAndAudience(tamperedToken, key: rsaPublic, validation: options) } },
        { fails { _ = try JWT.verifyIgnoringIssuerAndAudience(rsToken, key: hmac, validation: options) } },
        { fails { _ = try JWT.verifyIgnoringIssuerAndAudience("eyJhbGciOiJub25lIn0.e30.", key: rsaPublic, validation: options) } },
        { fails { _ = try JWK(json: #"{"kty":"EC","crv":"P-256","x":"AAAA","y":"AAAA"}"#) } },
        { fails { _ = try JWK(pem: "-----BEGIN PUBLIC KEY-----\nMIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEA\n-----END PUBLIC KEY-----\n") } },
        { fails { _ = try CompactJWS("eyJhbGciOiJSUzI1NiJ9.e30.AAAA.extra") } },
    ]
}

guard let options = parseOptions() else {
    FileHandle.standardError.write(Data("usage: jose-leak-check [--keys DIR] [--iterations N] [--max-growth-kb KB]\n".utf8))
    exit(2)
}
let steps: [() -> Bool]
do {
    steps = try makeSteps(keysDirectory: options.keys)
} catch {
    FileHandle.standardError.write(Data("jose-leak-check: setup failed: \(error)\n".utf8))
    exit(2)
}

var checkpoints = Set([1_000, 10_000, 100_000, 1_000_000, options.iterations])
var baseline: Int?
var unexpected = 0
let start = Date()
print("start rss_kb=\(residentKB())")
for i in 1...options.iterations {
    if !steps[i % steps.count]() { unexpected += 1 }
    if checkpoints.contains(i) {
        let rss = residentKB()
        if i == 10_000 || (baseline == nil && i == options.iterations) { baseline = rss }
        print("iterations=\(i) rss_kb=\(rss) elapsed_s=\(String(format: "%.1f", Date().timeIntervalSince(start)))")
        checkpoints.remove(i)
    }
}
let final = residentKB()
let growth = final - (baseline ?? final)
print("rss growth from 10^4 to \(options.iterations) iterations: \(growth) KiB; steps with an unexpected result: \(unexpected)")
if unexpected > 0 || growth > options.maxGrowthKB {
    print("LEAK CHECK FAILED")
    exit(1)
}
print("leak check passed")
