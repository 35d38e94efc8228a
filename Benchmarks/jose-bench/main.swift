// jose-bench: full JWT verifications per second through the public JOSE API
// against the raw libcrypto ceiling for the same signature over the same bytes,
// in one process, with 1 and 2 threads (`--access-token`: RFC 9068 validations through
// OIDCResourceServer instead, AccessTokenBench.swift; `--jwe`: decrypt + verify of an encrypted
// ID Token, JWEBench.swift; `--sd-jwt`: an SD-JWT+KB presentation with 10 disclosures, SDJWTBench.swift).
// One line per algorithm and thread count:
//   RS256 threads=1 api=43120 raw=51480 ratio=0.84
// api and raw are the medians of the slices' rates; ratio is the median of the
// per-pair ratios. JOSE_BENCH_SLICES=1 prints every pair (api:raw) to stderr.
import CLibCrypto
import Foundation
import JOSE

let keysDirectory = BenchSupport.keysDirectory()
let payload = BenchSupport.idTokenPayload()
// Many short alternating slices rather than a few long ones: on a shared VM the
// speed of the machine drifts over seconds, and fine interleaving exposes the raw
// and API loops to the same drift. 25 × 2 × 0.05 s = 2.5 s per line, as before.
let seconds = Double(ProcessInfo.processInfo.environment["JOSE_BENCH_SECONDS"] ?? "").flatMap { (0.001...3600).contains($0) ? $0 : nil } ?? 0.05
let rounds = Int(ProcessInfo.processInfo.environment["JOSE_BENCH_ROUNDS"] ?? "") ?? 25
let partsMode = CommandLine.arguments.contains("--parts")
let accessTokenMode = CommandLine.arguments.contains("--access-token")
let jweMode = CommandLine.arguments.contains("--jwe")
let sdJWTMode = CommandLine.arguments.contains("--sd-jwt")
let selected = Set(CommandLine.arguments.dropFirst().filter { $0 != "--parts" && $0 != "--access-token" && $0 != "--jwe" && $0 != "--sd-jwt" })

if sdJWTMode {
    do {
        try SDJWTBench.run(keysDirectory: keysDirectory, payload: payload, seconds: seconds, rounds: rounds)
        exit(0)
    } catch {
        FileHandle.standardError.write(Data("jose-bench: \(error)\n".utf8))
        exit(1)
    }
}

if jweMode {
    do {
        try JWEBench.run(keysDirectory: keysDirectory, payload: payload, seconds: seconds, rounds: rounds)
        exit(0)
    } catch {
        FileHandle.standardError.write(Data("jose-bench: \(error)\n".utf8))
        exit(1)
    }
}

let cases: [(JWSAlgorithm, String)] = [
    (.rs256, "rsa2048"), (.ps256, "rsa2048"), (.es256, "p256"), (.es384, "p384"), (.eddsa, "ed25519"), (.hs256, "hmac"),
]

if accessTokenMode {
    // RFC 9068 validations through OIDCResourceServer's public API (AccessTokenBench.swift).
    do {
        if partsMode {
            try await DPoPParts.run(keysDirectory: keysDirectory)
            exit(0)
        }
        try await AccessTokenBench.run(
            cases: cases.filter { selected.isEmpty || selected.contains($0.0.rawValue) },
            keysDirectory: keysDirectory, seconds: seconds, rounds: rounds)
        exit(0)
    } catch {
        FileHandle.standardError.write(Data("jose-bench: \(error)\n".utf8))
        exit(1)
    }
}

do {
    for (algorithm, keyName) in cases where selected.isEmpty || selected.contains(algorithm.rawValue) {
        let fixture = try BenchFixture(algorithm: algorithm, keyName: keyName, keysDirectory: keysDirectory, payload: payload)
        if partsMode {
            try Parts.run(fixture)
            continue
        }
        for threads in [1, 2] {
            var apiRates: [Double] = []
            var rawRates: [Double] = []
            // Alternate raw and API rounds so machine noise hits both alike; report medians.
            for _ in 0..<rounds {
                rawRates.append(try Runner.rate(threads: threads, seconds: seconds) { try fixture.makeRawLoop() })
                apiRates.append(try Runner.rate(threads: threads, seconds: seconds) { fixture.makeAPILoop() })
            }
            if ProcessInfo.processInfo.environment["JOSE_BENCH_SLICES"] != nil {
                let pairs = zip(apiRates, rawRates).map { "\(Int($0)):\(Int($1))" }.joined(separator: " ")
                FileHandle.standardError.write(Data("slices \(algorithm.rawValue) threads=\(threads) \(pairs)\n".utf8))
            }
            let api = Runner.median(apiRates)
            let raw = Runner.median(rawRates)
            // The ratio is taken per pair of back-to-back slices, then the median of
            // those: a burst of load from another tenant then spoils one pair, not the
            // whole line (the median rates can come from differently loaded moments).
            let ratio = Runner.median(zip(apiRates, rawRates).map { $0 / $1 })
            // The benchmark's report on standard output (its only input is Keys/ and a fixed payload).
            print("\(algorithm.rawValue) threads=\(threads) api=\(Int(api)) raw=\(Int(raw)) ratio=\(String(format: "%.2f", ratio))")
            fflush(nil)
        }
    }
} catch {
    FileHandle.standardError.write(Data("jose-bench: \(error)\n".utf8))
    exit(1)
}
