import Foundation
import JOSE
import OIDC
import OIDCResourceServer

/// `jose-bench --access-token [ALG...]`: RFC 9068 access-token validations per second through
/// `AccessTokenValidator.validate(method:url:headers:)` (the one call: `Authorization` read, `cnf` checked; keys from a warm `JWKSetCache`: every check of the public
/// API, the actor hop included) against the raw libcrypto signature check of the same token,
/// measured the same way as the JWT lines (alternating slices, medians, per-pair ratio):
///   RFC9068 ES256 threads=1 api=14100 raw=15800 ratio=0.89
/// Then DPoP (RFC 9449), measured the same way, each call with a fresh ES256 proof (Keys/p256)
/// from a pool signed before the slice, replay protection on (a `InMemoryReplayCache`):
///   DPoP-proof ES256 threads=1 api=... raw=... ratio=...   `DPoPProofValidator.validate` vs the proof's signature
///   RFC9449 RS256 threads=1 api=... raw=... ratio=...      the one call with `Authorization: DPoP` + proof (a token
///                                                          bound by cnf.jkt) vs the token's and the proof's signatures
enum AccessTokenBench {
    static let issuer = "https://as.example"
    static let audience = "https://api.example"

    /// Serves one JWK Set from memory: after the first fetch the cache is warm.
    struct MemoryTransport: HTTPTransport {
        let jwks: [UInt8]
        func send(_ request: TransportRequest) async throws -> TransportResponse {
            TransportResponse(status: 200, headers: ["Content-Type": "application/json"], body: jwks)
        }
    }

    static func claims() -> JSONObject {
        let now = Int64(Date().timeIntervalSince1970)
        return [
            "iss": .string(issuer), "sub": "00u1a2b3c4d5e6f7g8h9", "aud": .string(audience), "client_id": "0oa9z8y7x6w5v4u3t2s1",
            "iat": .integer(now), "exp": .integer(now + 3600), "jti": "8cf24661-9878-4dda-b2e8-01eb05795bd4",
            "scope": "openid api.read api.write", "auth_time": .integer(now - 30), "acr": "urn:mace:incommon:iap:silver",
            "amr": .array(["pwd", "mfa"]),
        ]
    }

    static func run(cases: [(JWSAlgorithm, String)], keysDirectory: URL, seconds: Double, rounds: Int) async throws {
        for (algorithm, keyName) in cases where algorithm.family != .hmac {
            func read(_ name: String) throws -> String { try String(contentsOf: keysDirectory.appendingPathComponent(name), encoding: .utf8) }
            let publicJWK = try read("\(keyName).pub.jwk")
            // The published key names its algorithm (Keys/*.pub.jwk): PS256 on the RS256 key has no line here.
            if let published = try JWK(json: publicJWK).algorithm, published != algorithm.rawValue { continue }
            var privateKey = try JWK(pem: read("\(keyName).pem"))
            privateKey.algorithm = nil
            privateKey.keyID = try JWK(json: publicJWK).keyID
            let token = try JWT.sign(claims(), key: privateKey, algorithm: algorithm, header: ["typ": "at+jwt"])
            let publicPEM = try read("\(keyName).pub.pem")
            let jwks = Array(#"{"keys":[\#(publicJWK)]}"#.utf8)
            let cache = try JWKSetCache(
                jwksURI: URL(string: "https://as.example/jwks")!, transport: MemoryTransport(jwks: jwks),
                configuration: .init(defaultTimeToLive: 86_400, honoursCacheControl: false))
            let validator = AccessTokenValidator(issuer: issuer, audience: audience, keys: .cache(cache), tokenCache: nil)
            let url = URL(string: "https://api.example/items")!
            let headers: HeaderFields = ["Authorization": "Bearer " + token]
            // Warms the cache; fails loudly if anything is off.
            _ = try await validator.validate(method: "GET", url: url, headers: headers, requiredScopes: ["api.read"])

            let parts = token.split(separator: ".")
            let input = Array("\(parts[0]).\(parts[1])".utf8)
            let signature = try Base64URL.decode(String(parts[2]))
            let isEdDSA = algorithm.family == .eddsa
            let raw: @Sendable () throws -> () throws -> Bool = {
                if isEdDSA { return try RawEdDSA(pem: publicPEM, input: input, signature: signature).loop() }
                return try RawDigestVerify(pem: publicPEM, algorithm: algorithm, input: input, jwsSignature: signature).loop()
            }
            for threads in [1, 2] {
                var apiRates: [Double] = []
                var rawRates: [Double] = []
                for _ in 0..<rounds {
                    rawRates.append(try Runner.rate(threads: threads, seconds: seconds, make: raw))
                    apiRates.append(
                        try await rate(tasks: threads, seconds: seconds) {
                            _ = try await validator.validate(method: "GET", url: url, headers: headers, requiredScopes: ["api.read"])
                        })
                }
                let ratio = Runner.median(zip(apiRates, rawRates).map { $0 / $1 })
                print(
                    "RFC9068 \(algorithm.rawValue) threads=\(threads) api=\(Int(Runner.median(apiRates))) raw=\(Int(Runner.median(rawRates))) ratio=\(String(format: "%.2f", ratio))"
                )
                fflush(nil)
            }

            if [.rs256, .es256, .eddsa].contains(algorithm) {
                try await cached(
                    algorithm: algorithm, token: token, headers: headers, url: url, cache: cache, raw: raw, privateKey: privateKey,
                    seconds: seconds, rounds: rounds)
            }

            // RFC 9449: the same token bound to the DPoP key, presented with a fresh proof per call.
            let dpop = try DPoPFixture(keysDirectory: keysDirectory)
            var boundClaims = claims()
            boundClaims["cnf"] = .object(["jkt": .string(dpop.key.thumbprint)])
            let bound = try JWT.sign(boundClaims, key: privateKey, algorithm: algorithm, header: ["typ": "at+jwt"])
            let boundParts = bound.split(separator: ".")
            let boundInput = Array("\(boundParts[0]).\(boundParts[1])".utf8)
            let boundSignature = try Base64URL.decode(String(boundParts[2]))
            let rawToken: @Sendable () throws -> () throws -> Bool = {
                if isEdDSA { return try RawEdDSA(pem: publicPEM, input: boundInput, signature: boundSignature).loop() }
                return try RawDigestVerify(pem: publicPEM, algorithm: algorithm, input: boundInput, jwsSignature: boundSignature).loop()
            }
            let rawProof = try dpop.rawLoop(token: bound)
            let rawBoth: @Sendable () throws -> () throws -> Bool = {
                let token = try rawToken(), proof = try rawProof()
                return { try token() && proof() }
            }
            let dpopValidator = AccessTokenValidator(issuer: issuer, audience: audience, keys: .cache(cache), proofs: dpop.validator(), tokenCache: nil)
            try await measure("RFC9449 \(algorithm.rawValue)", rounds: rounds, seconds: seconds, raw: rawBoth, pool: dpop.pool(token: bound)) { proof in
                let headers: HeaderFields = ["Authorization": "DPoP " + bound, "DPoP": proof]
                _ = try await dpopValidator.validate(method: "GET", url: DPoPFixture.url, headers: headers, requiredScopes: ["api.read"])
            }
        }
        // DPoP proof validation alone (once: it does not depend on the token's algorithm).
        let dpop = try DPoPFixture(keysDirectory: keysDirectory)
        let token = "opaque-access-token-0123456789"
        let proofValidator = dpop.validator()
        try await measure("DPoP-proof ES256", rounds: rounds, seconds: seconds, raw: try dpop.rawLoop(token: token), pool: dpop.pool(token: token)) { proof in
            _ = try await proofValidator.validate(
                proof, for: .request(method: "GET", uri: DPoPFixture.url), nonce: .notRequired,
                presenting: .accessToken(token, boundTo: .thumbprint(dpop.key.thumbprint)))
        }
    }

    /// The verified-token cache (issue 33), measured as the lines above:
    ///   RFC9068-cached ES256 threads=1 api=... raw=... ratio=...       a cache hit through the validator's one call vs
    ///                                                                  the raw libcrypto check of the same token
    ///   RFC9068-cached-miss ES256 threads=1 api=... raw=... ratio=...  a working set 10x the cache's entries, tokens
    ///                                                                  drawn uniformly: the cached validator vs an uncached
    ///                                                                  one on the same draws (`raw` = the uncached validation)
    static func cached(
        algorithm: JWSAlgorithm, token: String, headers: HeaderFields, url: URL, cache: JWKSetCache,
        raw: @escaping @Sendable () throws -> () throws -> Bool, privateKey: JWK, seconds: Double, rounds: Int
    ) async throws {
        let validator = AccessTokenValidator(issuer: issuer, audience: audience, keys: .cache(cache))
        _ = try await validator.validate(method: "GET", url: url, headers: headers, requiredScopes: ["api.read"])
        guard validator.tokenCache?.count == 1 else { throw BenchError.libcrypto("the token was not cached") }
        for threads in [1, 2] {
            var apiRates: [Double] = []
            var rawRates: [Double] = []
            for _ in 0..<rounds {
                rawRates.append(try Runner.rate(threads: threads, seconds: seconds, make: raw))
                // Each task its own request values, as each request of a server has: only the validator is shared.
                let requests = (0..<threads).map { _ in
                    var own = HeaderFields()
                    own.add("Authorization", String(decoding: Array("Bearer \(token)".utf8), as: UTF8.self))
                    return (url: URL(string: url.absoluteString) ?? url, headers: own)
                }
                apiRates.append(
                    try await rate(tasks: threads, seconds: seconds) { task in
                        let request = requests[task]
                        _ = try await validator.validate(method: "GET", url: request.url, headers: request.headers, requiredScopes: ["api.read"])
                    })
            }
            let ratio = Runner.median(zip(apiRates, rawRates).map { $0 / $1 })
            print(
                "RFC9068-cached \(algorithm.rawValue) threads=\(threads) api=\(Int(Runner.median(apiRates))) raw=\(Int(Runner.median(rawRates))) ratio=\(String(format: "%.2f", ratio))"
            )
            fflush(nil)
        }
        guard algorithm == .es256 else { return }
        // The miss line: 1 000 entries, 10 000 distinct tokens drawn uniformly (a hit one time in ten at best).
        let entries = 1000
        let requests: [HeaderFields] = try (0..<(entries * 10)).map { index in
            var claims = claims()
            claims["jti"] = .string("jti-\(index)")
            return ["Authorization": "Bearer " + (try JWT.sign(claims, key: privateKey, algorithm: algorithm, header: ["typ": "at+jwt"]))]
        }
        let cachedValidator = AccessTokenValidator(
            issuer: issuer, audience: audience, keys: .cache(cache), tokenCache: VerifiedTokenStore(capacity: entries, maximumAge: 3600))
        let uncached = AccessTokenValidator(issuer: issuer, audience: audience, keys: .cache(cache), tokenCache: nil)
        let draws = Locked(UInt64(0x9E37_79B9_7F4A_7C15))
        @Sendable func draw() -> HeaderFields {
            let next = draws.withLock { state in
                state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                return state
            }
            return requests[Int((next >> 33) % UInt64(requests.count))]
        }
        for threads in [1, 2] {
            var apiRates: [Double] = []
            var baseRates: [Double] = []
            for _ in 0..<rounds {
                baseRates.append(
                    try await rate(tasks: threads, seconds: seconds) {
                        _ = try await uncached.validate(method: "GET", url: url, headers: draw(), requiredScopes: ["api.read"])
                    })
                apiRates.append(
                    try await rate(tasks: threads, seconds: seconds) {
                        _ = try await cachedValidator.validate(method: "GET", url: url, headers: draw(), requiredScopes: ["api.read"])
                    })
            }
            let ratio = Runner.median(zip(apiRates, baseRates).map { $0 / $1 })
            print(
                "RFC9068-cached-miss \(algorithm.rawValue) threads=\(threads) api=\(Int(Runner.median(apiRates))) raw=\(Int(Runner.median(baseRates))) ratio=\(String(format: "%.2f", ratio))"
            )
            fflush(nil)
        }
    }

    /// One line per thread count: `operation` on a fresh proof per call (proofs signed before each slice,
    /// enough for the raw rate of the slice before it) against `raw`, alternating slices as above.
    static func measure(
        _ label: String, rounds: Int, seconds: Double, raw: @escaping @Sendable () throws -> () throws -> Bool,
        pool: ProofPool, _ operation: @escaping @Sendable (String) async throws -> Void
    ) async throws {
        var fastest = 0.0
        for threads in [1, 2] {
            var apiRates: [Double] = []
            var rawRates: [Double] = []
            for _ in 0..<rounds {
                let rawRate = try Runner.rate(threads: threads, seconds: seconds, make: raw)
                rawRates.append(rawRate)
                fastest = max(fastest, rawRate)
                try pool.refill(Int(fastest * seconds * 3) + 256 * threads)  // the api never outpaces raw threefold
                apiRates.append(try await rate(tasks: threads, seconds: seconds) { try await operation(try pool.next()) })
            }
            let ratio = Runner.median(zip(apiRates, rawRates).map { $0 / $1 })
            print("\(label) threads=\(threads) api=\(Int(Runner.median(apiRates))) raw=\(Int(Runner.median(rawRates))) ratio=\(String(format: "%.2f", ratio))")
            fflush(nil)
        }
    }

    /// Operations per second of `operation` run back to back in `tasks` concurrent tasks for about `seconds`.
    static func rate(tasks: Int, seconds: Double, _ operation: @escaping @Sendable () async throws -> Void) async throws -> Double {
        try await rate(tasks: tasks, seconds: seconds) { (_: Int) in try await operation() }
    }

    /// As ``rate(tasks:seconds:_:)``, telling `operation` which task (0..<tasks) runs it.
    static func rate(tasks: Int, seconds: Double, _ operation: @escaping @Sendable (Int) async throws -> Void) async throws -> Double {
        let start = DispatchTime.now().uptimeNanoseconds
        let deadline = start + UInt64(seconds * 1e9)
        let total = try await withThrowingTaskGroup(of: Int.self) { group in
            for task in 0..<tasks {
                group.addTask {
                    var done = 0
                    repeat {
                        for _ in 0..<16 { try await operation(task) }
                        done += 16
                    } while DispatchTime.now().uptimeNanoseconds < deadline
                    return done
                }
            }
            return try await group.reduce(0, +)
        }
        return Double(total) / (Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9)
    }
}

/// The DPoP key (Keys/p256, ES256), the request, and the raw check of one of its proofs.
struct DPoPFixture: Sendable {
    static let url = URL(string: "https://api.example/items")!
    let key: DPoPKey
    let publicPEM: String

    init(keysDirectory: URL) throws {
        key = try DPoPKey(key: try JWK(pem: String(contentsOf: keysDirectory.appendingPathComponent("p256.pem"), encoding: .utf8)), algorithm: .es256)
        publicPEM = try String(contentsOf: keysDirectory.appendingPathComponent("p256.pub.pem"), encoding: .utf8)
    }

    /// A proof validator as a server has it: replay protection on, with room for every proof of the run.
    func validator() -> DPoPProofValidator {
        DPoPProofValidator(replays: .cache(InMemoryReplayCache(capacity: 50_000_000, scopeCapacity: 50_000_000)))
    }

    /// A pool of fresh proofs for `token`.
    func pool(token: String) -> ProofPool { ProofPool(key: key, token: token) }

    /// The raw ES256 check of one proof's signature.
    func rawLoop(token: String) throws -> @Sendable () throws -> () throws -> Bool {
        let proof = try key.proof(method: "GET", url: Self.url, accessToken: token)
        let parts = proof.split(separator: ".")
        let input = Array("\(parts[0]).\(parts[1])".utf8)
        let signature = try Base64URL.decode(String(parts[2]))
        let pem = publicPEM
        return { try RawDigestVerify(pem: pem, algorithm: .es256, input: input, jwsSignature: signature).loop() }
    }
}

/// Proofs signed ahead of a timed slice, each handed out once.
final class ProofPool: Sendable {
    private let key: DPoPKey
    private let token: String
    private let state = Locked((proofs: [String](), next: 0))

    init(key: DPoPKey, token: String) {
        self.key = key
        self.token = token
    }

    /// Replaces the pool with `count` fresh proofs (outside the timing).
    func refill(_ count: Int) throws {
        let now = Date()
        let proofs = try (0..<count).map { _ in try key.proof(method: "GET", url: DPoPFixture.url, accessToken: token, now: now) }
        state.withLock { $0 = (proofs, 0) }
    }

    /// The next unused proof.
    func next() throws -> String {
        try state.withLock { state in
            guard state.next < state.proofs.count else { throw BenchError.libcrypto("the proof pool ran out: raise its margin") }
            defer { state.next += 1 }
            return state.proofs[state.next]
        }
    }
}

/// `jose-bench --access-token --parts`: nanoseconds per call of each stage of DPoP proof validation
/// (one thread, fresh proofs), to see where the time over the raw ceiling goes.
enum DPoPParts {
    static func run(keysDirectory: URL) async throws {
        let dpop = try DPoPFixture(keysDirectory: keysDirectory)
        let token = "opaque-access-token-0123456789"
        let iterations = Int(ProcessInfo.processInfo.environment["JOSE_PARTS_ITER"] ?? "") ?? 2_000
        let pool = dpop.pool(token: token)
        try pool.refill(iterations * 2 + 10)
        let proof = try pool.next()
        let jws = try CompactJWS(proof)
        let members = jws.header.members["jwk"]?.objectValue ?? [:]
        let key = try JWK(jsonObject: members)
        func time(_ label: String, _ body: () async throws -> Void) async rethrows {
            let start = DispatchTime.now().uptimeNanoseconds
            for _ in 0..<iterations { try await body() }
            print("  \(label): \(Int(Double(DispatchTime.now().uptimeNanoseconds - start) / Double(iterations))) ns")
        }
        print("DPoP proof parts:")
        try await time("CompactJWS.init") { _ = try CompactJWS(proof) }
        try await time("JWK(jsonObject:)") { _ = try JWK(jsonObject: members) }
        try await time("jws.verify (key built)") { try jws.verify(with: key) }
        try await time("JWK + jws.verify") { try jws.verify(with: try JWK(jsonObject: members)) }
        await time("key.thumbprint") { _ = key.thumbprint() }
        try await time("JWTClaims + times") {
            try JWTClaims(payload: jws.payload).validateTimes(now: Date(), leeway: 60, requiresExpiration: false, requiresIssuedAt: true)
        }
        await time("normalizedURI x2") {
            _ = DPoPProofValidator.normalizedURI(DPoPFixture.url)
            _ = DPoPProofValidator.normalizedURI("https://api.example/items")
        }
        await time("accessTokenHash") { _ = DPoPKey.accessTokenHash(token) }
        let cache = InMemoryReplayCache(capacity: 10_000_000, scopeCapacity: 10_000_000)
        var counter = 0
        await time("replay cache") {
            counter += 1
            _ = cache.recordFirstUse(of: "jti-\(counter)", scope: "thumb", until: Date().addingTimeInterval(360), now: Date())
        }
        let validator = dpop.validator()
        try await time("DPoPProofValidator.validate") {
            _ = try await validator.validate(
                try pool.next(), for: .request(method: "GET", uri: DPoPFixture.url), nonce: .notRequired,
                presenting: .accessToken(token, boundTo: .thumbprint(dpop.key.thumbprint)))
        }
        let unchecked = DPoPProofValidator(replays: .disabledAtCallersRisk)
        try await time("validate, one proof, replays off") {
            _ = try await unchecked.validate(
                proof, for: .request(method: "GET", uri: DPoPFixture.url), nonce: .notRequired,
                presenting: .accessToken(token, boundTo: .thumbprint(dpop.key.thumbprint)))
        }
        let raw = try dpop.rawLoop(token: token)()
        try await time("raw") { _ = try raw() }
        if let count = Int(ProcessInfo.processInfo.environment["JOSE_PARTS_BEARER"] ?? "") {
            // For a profiler (valgrind --tool=callgrind): `count` Bearer validations of an RS256 token through the one call.
            let publicJWK = try String(contentsOf: keysDirectory.appendingPathComponent("rsa2048.pub.jwk"), encoding: .utf8)
            var privateKey = try JWK(pem: String(contentsOf: keysDirectory.appendingPathComponent("rsa2048.pem"), encoding: .utf8))
            privateKey.algorithm = nil
            privateKey.keyID = try JWK(json: publicJWK).keyID
            let bearer = try JWT.sign(AccessTokenBench.claims(), key: privateKey, algorithm: .rs256, header: ["typ": "at+jwt"])
            let cache = try JWKSetCache(
                jwksURI: URL(string: "https://as.example/jwks")!,
                transport: AccessTokenBench.MemoryTransport(jwks: Array(#"{"keys":[\#(publicJWK)]}"#.utf8)),
                configuration: .init(defaultTimeToLive: 86_400, honoursCacheControl: false))
            let validator = AccessTokenValidator(issuer: AccessTokenBench.issuer, audience: AccessTokenBench.audience, keys: .cache(cache), tokenCache: nil)
            let headers: HeaderFields = ["Authorization": "Bearer " + bearer]
            switch ProcessInfo.processInfo.environment["JOSE_PARTS_BEARER_MODE"] {
            case "raw":
                let parts = bearer.split(separator: ".")
                let loop = try RawDigestVerify(
                    pem: String(contentsOf: keysDirectory.appendingPathComponent("rsa2048.pub.pem"), encoding: .utf8),
                    algorithm: .rs256, input: Array("\(parts[0]).\(parts[1])".utf8),
                    jwsSignature: try Base64URL.decode(String(parts[2]))
                ).loop()
                for _ in 0..<count { _ = try loop() }
            case "token":
                for _ in 0..<count { _ = try await validator.validate(method: "GET", url: DPoPFixture.url, headers: headers, requiredScopes: ["api.read"]) }
            case "dpop":
                // `count` RFC 9449 validations (a cnf.jkt-bound RS256 token, a fresh ES256 proof each), for a profiler.
                var boundClaims = AccessTokenBench.claims()
                boundClaims["cnf"] = .object(["jkt": .string(dpop.key.thumbprint)])
                let bound = try JWT.sign(boundClaims, key: privateKey, algorithm: .rs256, header: ["typ": "at+jwt"])
                let proofs = dpop.pool(token: bound)
                try proofs.refill(count)
                let dpopValidator = AccessTokenValidator(
                    issuer: AccessTokenBench.issuer, audience: AccessTokenBench.audience,
                    keys: .cache(cache), proofs: dpop.validator(), tokenCache: nil)
                for _ in 0..<count {
                    let headers: HeaderFields = ["Authorization": "DPoP " + bound, "DPoP": try proofs.next()]
                    _ = try await dpopValidator.validate(method: "GET", url: DPoPFixture.url, headers: headers, requiredScopes: ["api.read"])
                }
            case "overhead":
                // Alternating slices: the raw signature check, the request call; medians of ns per call and their difference.
                let parts = bearer.split(separator: ".")
                let loop = try RawDigestVerify(
                    pem: String(contentsOf: keysDirectory.appendingPathComponent("rsa2048.pub.pem"), encoding: .utf8),
                    algorithm: .rs256, input: Array("\(parts[0]).\(parts[1])".utf8),
                    jwsSignature: try Base64URL.decode(String(parts[2]))
                ).loop()
                var raw: [Double] = [], request: [Double] = [], differences: [Double] = []
                for _ in 0..<25 {
                    var start = DispatchTime.now().uptimeNanoseconds
                    for _ in 0..<count { _ = try loop() }
                    raw.append(Double(DispatchTime.now().uptimeNanoseconds - start) / Double(count))
                    start = DispatchTime.now().uptimeNanoseconds
                    for _ in 0..<count {
                        _ = try await validator.validate(method: "GET", url: DPoPFixture.url, headers: headers, requiredScopes: ["api.read"])
                    }
                    request.append(Double(DispatchTime.now().uptimeNanoseconds - start) / Double(count))
                    differences.append(request[request.count - 1] - raw[raw.count - 1])
                }
                print(
                    "  raw \(Int(Runner.median(raw))) ns, validate(method:url:headers:) \(Int(Runner.median(request))) ns, overhead \(Int(Runner.median(differences))) ns, ratio \(String(format: "%.3f", Runner.median(zip(raw, request).map { $0 / $1 })))"
                )
            case "compare":
                // Alternating slices: the front door's call (ResourceGuard.check), the validator's; medians of ns per call.
                var configuration = ResourceGuard.Configuration(issuer: AccessTokenBench.issuer, audience: AccessTokenBench.audience)
                configuration.keys = .cache(cache)
                configuration.verifiedTokenCache = .off  // the uncached path, as the validator's
                configuration.transport = AccessTokenBench.MemoryTransport(jwks: [])
                let frontDoor = try await ResourceGuard(configuration: configuration)
                var token: [Double] = [], request: [Double] = []
                for _ in 0..<25 {
                    var start = DispatchTime.now().uptimeNanoseconds
                    for _ in 0..<count {
                        guard
                            case .allowed = await frontDoor.check(
                                method: "GET", url: DPoPFixture.url, headers: headers,
                                requiredScopes: ["api.read"])
                        else { throw BenchError.libcrypto("the front door refused the token") }
                    }
                    token.append(Double(DispatchTime.now().uptimeNanoseconds - start) / Double(count))
                    start = DispatchTime.now().uptimeNanoseconds
                    for _ in 0..<count {
                        _ = try await validator.validate(method: "GET", url: DPoPFixture.url, headers: headers, requiredScopes: ["api.read"])
                    }
                    request.append(Double(DispatchTime.now().uptimeNanoseconds - start) / Double(count))
                }
                print("  ResourceGuard.check \(Int(Runner.median(token))) ns, validate(method:url:headers:) \(Int(Runner.median(request))) ns")
            default:
                for _ in 0..<count {
                    _ = try await validator.validate(method: "GET", url: DPoPFixture.url, headers: headers, requiredScopes: ["api.read"])
                }
            }
        }
        try await time("jws.verify (key built)") { try jws.verify(with: key) }
    }
}
