// swift-tools-version:6.1
import PackageDescription

// Read in layers: the C libraries, the modules (each depends only on those above it), the
// command-line tool, the samples, the benchmarks, the tests. No Swift package dependencies.

let strict: [SwiftSetting] = [
    .swiftLanguageMode(.v6),
    .enableUpcomingFeature("ExistentialAny"),
]

// MARK: C libraries (system libraries and one C target)

let cLibraries: [Target] = [
    // OpenSSL's libcrypto (3.x), through the EVP API only.
    .systemLibrary(name: "CLibCrypto", pkgConfig: "libcrypto", providers: [.apt(["libssl-dev"]), .brew(["openssl@3"])]),
    // libssl, for OIDCTLSTransport's small HTTPS client (jwt-inspect's URL options, LibSSLTransport). libssl itself is loaded
    // with dlopen on the first https fetch, so offline runs never map it; its headers come with
    // libcrypto's, through CLibCrypto's pkg-config flags.
    .systemLibrary(name: "CLibSSL"),
    // PostgreSQL's libpq: needed only by consumers of OIDCPostgres.
    .systemLibrary(name: "CLibPQ", pkgConfig: "libpq", providers: [.apt(["libpq-dev"]), .brew(["libpq"])]),
    // zlib: inflating a Token Status List's `lst` (JOSE), with a hard bound on the output.
    .systemLibrary(name: "CZlib", providers: [.apt(["zlib1g-dev"])]),
    // SSSE3 Base64URL decoding of whole 16-character blocks (x86; elsewhere it consumes nothing
    // and JOSE's Swift decoder does all the work).
    .target(name: "CBase64URL"),
]

// MARK: Modules

let modules: [Target] = [
    // Keys, JWS, JWT. FoundationEssentials only: no networking, fast start-up.
    .target(name: "JOSE", dependencies: ["CLibCrypto", "CBase64URL", "CZlib"], swiftSettings: strict,
            linkerSettings: [.linkedLibrary("m", .when(platforms: [.linux]))]),
    // What every role shares: the HTTP vocabulary, errors, the observer, URL and fetch policies, discovery and
    // metadata, key caches, replay caches, provider profiles, client authentication. FoundationEssentials only.
    .target(name: "OIDCCore", dependencies: ["JOSE"], swiftSettings: strict),
    // The relying party and its front door, OIDCClient. FoundationEssentials only; HTTP goes through HTTPTransport
    // (LibSSLTransport by default: libssl is loaded on the first https request, so offline users never map it).
    .target(name: "OIDC", dependencies: ["OIDCCore", "OIDCTLSTransport", "JOSE"], swiftSettings: strict),
    // URLSession-based HTTPTransport (pulls in FoundationNetworking on Linux).
    .target(name: "OIDCNetworking", dependencies: ["OIDCCore"], swiftSettings: strict),
    // An HTTPTransport on sockets and libssl that can present a client certificate (mTLS, RFC 8705); also
    // jwt-inspect's fetcher. FoundationEssentials only.
    .target(name: "OIDCTLSTransport", dependencies: ["OIDCCore", "JOSE", "CLibCrypto", "CLibSSL"], swiftSettings: strict),
    // The authenticated session (bearer or DPoP, refresh once on a 401) and token stores.
    .target(name: "OIDCSession", dependencies: ["OIDC", "JOSE", "CLibCrypto"], swiftSettings: strict),
    // The receiving side: access tokens, DPoP proofs, introspection, bearer parsing, challenges.
    .target(name: "OIDCResourceServer", dependencies: ["OIDCCore", "OIDCTLSTransport", "JOSE"], swiftSettings: strict),
    // Shared Signals (SSF 1.0, CAEP, RISC): Security Event Tokens, transmitter discovery and streams, push and poll
    // delivery, and acting on them (sessions, token stores, the application's caches).
    .target(name: "OIDCSharedSignals", dependencies: ["OIDC", "OIDCSession", "OIDCResourceServer", "JOSE"], swiftSettings: strict),
    // PostgreSQL stores and replay cache for many replicas.
    .target(name: "OIDCPostgres", dependencies: ["OIDCSession", "OIDCResourceServer", "OIDC", "JOSE", "CLibPQ", "CLibCrypto"],
            swiftSettings: strict),
    // Redis 7 / Valkey 8 stores and replay cache for many replicas: RESP on the toolkit's own sockets and libssl
    // (OIDCTLSTransport's TLS client), no C client library.
    .target(name: "OIDCRedis", dependencies: ["OIDCSession", "OIDCResourceServer", "OIDC", "JOSE", "OIDCTLSTransport", "CLibSSL"],
            swiftSettings: strict),
]

// MARK: The command-line tool

let tool: [Target] = [
    // Offline decode/verify must not load FoundationNetworking: JOSE and OIDC use FoundationEssentials only.
    // Position-independent like every other executable (ASLR): it parses untrusted tokens and speaks TLS.
    .executableTarget(name: "jwt-inspect", dependencies: ["JOSE", "OIDC", "OIDCResourceServer", "OIDCTLSTransport"],
                      swiftSettings: strict),
]

// MARK: Samples (Samples/README.md; Samples/hummingbird-app is a package of its own)

func sample(_ name: String, _ dependencies: [Target.Dependency]) -> Target {
    .executableTarget(name: name, dependencies: dependencies, path: "Samples/\(name)", swiftSettings: strict)
}

let samples: [Target] = [
    // What the FAPI samples share (arguments, key files, the client setup); not a product.
    .target(name: "FAPISampleSupport", dependencies: ["OIDC", "JOSE"], path: "Samples/FAPISampleSupport", swiftSettings: strict),
    sample("sample-fapi-login", ["FAPISampleSupport", "OIDC", "OIDCNetworking", "JOSE"]),
    sample("sample-fapi-finish", ["FAPISampleSupport", "OIDC", "OIDCNetworking", "OIDCSession", "JOSE"]),
    sample("sample-ciba", ["FAPISampleSupport", "OIDC", "OIDCNetworking", "JOSE"]),
    // The samples' one rule for the transport: --ca-file (or a client certificate) → LibSSLTransport, else URLSession.
    .target(name: "SampleSupport", dependencies: ["OIDC", "OIDCNetworking", "OIDCTLSTransport"], path: "Samples/SampleSupport",
            swiftSettings: strict),
    sample("sample-authorize-url", ["SampleSupport", "OIDC", "JOSE"]),
    sample("sample-register", ["SampleSupport", "OIDC", "JOSE"]),
    sample("sample-exchange-code", ["SampleSupport", "OIDC", "JOSE", "OIDCSession", "OIDCTLSTransport"]),
    sample("sample-call-api", ["OIDC", "OIDCNetworking", "OIDCSession"]),
    sample("sample-read-claims", ["OIDC"]),
    sample("sample-port-token", ["OIDC", "OIDCNetworking"]),
    sample("sample-client-credentials", ["OIDC", "OIDCNetworking", "JOSE"]),
    sample("sample-mcp-call", ["OIDC", "JOSE"]),
    sample("sample-resource-server", ["SampleSupport", "OIDC", "OIDCResourceServer", "JOSE"]),
    sample("sample-bearer-server", ["OIDC", "OIDCNetworking", "OIDCResourceServer", "JOSE"]),
    sample("sample-replica", ["OIDC", "OIDCNetworking", "OIDCSession", "OIDCPostgres", "OIDCRedis"]),
    sample("sample-pending-login", ["OIDC", "OIDCNetworking", "OIDCSession", "OIDCPostgres", "JOSE"]),
]

// MARK: Benchmarks (targets, not products: `swift run -c release NAME`)

func benchmark(_ name: String, _ dependencies: [Target.Dependency]) -> Target {
    .executableTarget(name: name, dependencies: dependencies, path: "Benchmarks/\(name)", swiftSettings: strict)
}

let benchmarks: [Target] = [
    benchmark("jose-bench", ["JOSE", "CLibCrypto", "OIDC", "OIDCResourceServer"]),
    benchmark("jose-leak-check", ["JOSE"]),
    benchmark("dpop-bench", ["OIDC", "OIDCSession", "JOSE"]),
    benchmark("session-bench", ["OIDC", "OIDCNetworking", "OIDCSession"]),
    benchmark("postgres-bench", ["OIDC", "OIDCSession", "OIDCPostgres"]),
]

// MARK: Tests

let tests: [Target] = [
    // Child processes run by the tests, waited for off Swift's cooperative pool (one runner for every target).
    .target(name: "TestProcesses", path: "Tests/TestProcesses", swiftSettings: strict),
    .testTarget(name: "JOSETests", dependencies: ["JOSE", "CLibCrypto", "CZlib", "TestProcesses"], resources: [.copy("Fixtures")], swiftSettings: strict),
    .testTarget(name: "OIDCTests", dependencies: ["OIDC", "JOSE"], swiftSettings: strict),
    .testTarget(name: "OIDCSessionTests", dependencies: ["OIDCSession", "OIDC", "JOSE"], swiftSettings: strict),
    .testTarget(name: "OIDCResourceServerTests", dependencies: ["OIDCResourceServer", "OIDC", "JOSE"], swiftSettings: strict),
    .testTarget(name: "OIDCPostgresTests", dependencies: ["OIDCPostgres", "OIDCSession", "OIDCResourceServer", "OIDC", "JOSE"],
                swiftSettings: strict),
    .testTarget(name: "OIDCRedisTests", dependencies: ["OIDCRedis", "OIDCSession", "OIDCResourceServer", "OIDC", "JOSE", "TestProcesses"],
                swiftSettings: strict),
    .testTarget(name: "OIDCSharedSignalsTests", dependencies: ["OIDCSharedSignals", "OIDCPostgres", "OIDCSession", "OIDC", "JOSE", "TestProcesses"],
                swiftSettings: strict),
    .testTarget(name: "OIDCTLSTransportTests", dependencies: ["OIDCTLSTransport", "OIDC", "JOSE", "TestProcesses"], swiftSettings: strict),
    .testTarget(name: "JWTInspectTests", dependencies: ["JOSE", "TestProcesses"], swiftSettings: strict),
    // The README's and the DocC articles' listings, compiled as written (ReadmeListingTests checks the documents show them).
    .testTarget(name: "ReadmeListing", dependencies: ["JOSE", "OIDC", "OIDCNetworking", "OIDCSession", "OIDCResourceServer", "OIDCPostgres",
                                                     "OIDCSharedSignals"],
                swiftSettings: strict),
    .testTarget(name: "IntegrationTests", dependencies: ["OIDC", "OIDCNetworking", "OIDCSession", "OIDCResourceServer", "JOSE", "OIDCTLSTransport", "TestProcesses"],
                swiftSettings: strict),
]

let package = Package(
    name: "swift-oidc-toolkit",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "JOSE", targets: ["JOSE"]),
        .library(name: "OIDCCore", targets: ["OIDCCore"]),
        .library(name: "OIDC", targets: ["OIDC"]),
        .library(name: "OIDCNetworking", targets: ["OIDCNetworking"]),
        .library(name: "OIDCTLSTransport", targets: ["OIDCTLSTransport"]),
        .library(name: "OIDCSession", targets: ["OIDCSession"]),
        .library(name: "OIDCResourceServer", targets: ["OIDCResourceServer"]),
        .library(name: "OIDCPostgres", targets: ["OIDCPostgres"]),
        .library(name: "OIDCRedis", targets: ["OIDCRedis"]),
        .library(name: "OIDCSharedSignals", targets: ["OIDCSharedSignals"]),
        .executable(name: "jwt-inspect", targets: ["jwt-inspect"]),
    ],
    targets: cLibraries + modules + tool + samples + benchmarks + tests
)
