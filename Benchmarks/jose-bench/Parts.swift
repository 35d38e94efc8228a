import Foundation
import JOSE

/// `jose-bench --parts`: nanoseconds per call of each stage of the API path,
/// to see where the time over the raw ceiling goes.
enum Parts {
    static func run(_ fixture: BenchFixture) throws {
        let token = fixture.token, key = fixture.key
        let jws = try CompactJWS(token)
        let payload = jws.payload
        let only = ProcessInfo.processInfo.environment["JOSE_PARTS_ONLY"]
        // `--parts` reports on standard output; the timed inputs are the fixture's own token and key.
        func time(_ label: String, _ body: () throws -> Void) rethrows {
            if let only, only != label { return }
            let iterations = Int(ProcessInfo.processInfo.environment["JOSE_PARTS_ITER"] ?? "") ?? 20_000
            let start = DispatchTime.now().uptimeNanoseconds
            for _ in 0..<iterations { try body() }
            let ns = Double(DispatchTime.now().uptimeNanoseconds - start) / Double(iterations)
            print("  \(label): \(Int(ns)) ns")
        }
        print("\(fixture.algorithm.rawValue) parts:")
        let segments = token.split(separator: ".").map(String.init)
        try time("Base64URL.decode(payload)") { _ = try Base64URL.decode(segments[1]) }
        try time("Base64URL.decode(signature)") { _ = try Base64URL.decode(segments[2]) }
        try time("CompactJWS.init") { _ = try CompactJWS(token) }
        try time("JWTClaims.init") { _ = try JWTClaims(payload: payload) }
        try time("claims.validate") { try JWTClaims(payload: payload).validate() }
        try time("jws.verify") { try jws.verify(with: key) }
        try time("JWT.verify") { _ = try JWT.verifyIgnoringIssuerAndAudience(token, key: key) }
        let raw = try fixture.makeRawLoop()
        try time("raw") { _ = try raw() }
    }
}
