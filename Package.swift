// swift-tools-version:6.1
import PackageDescription

let strict: [SwiftSetting] = [
    .swiftLanguageMode(.v6),
    .enableUpcomingFeature("ExistentialAny"),
]

func sample(_ name: String, _ dependencies: [Target.Dependency]) -> Target {
    .executableTarget(name: name, dependencies: dependencies, path: "Samples/\(name)", swiftSettings: strict)
}

let package = Package(
    name: "swift-oidc-toolkit",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "JOSE", targets: ["JOSE"]),
        .library(name: "OIDC", targets: ["OIDC"]),
        .library(name: "OIDCNetworking", targets: ["OIDCNetworking"]),
        .library(name: "OIDCSession", targets: ["OIDCSession"]),
        .library(name: "OIDCResourceServer", targets: ["OIDCResourceServer"]),
        .library(name: "OIDCPostgres", targets: ["OIDCPostgres"]),
        .executable(name: "jwt-inspect", targets: ["jwt-inspect"]),
    ],
    targets: [
        // OpenSSL's libcrypto (3.x), through the EVP API only.
        .systemLibrary(
            name: "CLibCrypto",
            pkgConfig: "libcrypto",
            providers: [.apt(["libssl-dev"]), .brew(["openssl@3"])]
        ),
        // SSSE3 Base64URL decoding of whole 16-character blocks (x86; elsewhere it
        // consumes nothing and JOSE's Swift decoder does all the work).
        .target(name: "CBase64URL"),
        // Keys and JWS. FoundationEssentials only: no networking, fast start-up.
        .target(
            name: "JOSE",
            dependencies: ["CLibCrypto", "CBase64URL"],
            swiftSettings: strict,
            linkerSettings: [.linkedLibrary("m", .when(platforms: [.linux]))]
        ),
        // OAuth/OIDC protocol layer: requests, responses, ID Tokens, key cache.
        // FoundationEssentials only; HTTP goes through the HTTPTransport protocol.
        .target(name: "OIDC", dependencies: ["JOSE"], swiftSettings: strict),
        // URLSession-based HTTPTransport (pulls in FoundationNetworking on Linux).
        .target(name: "OIDCNetworking", dependencies: ["OIDC"], swiftSettings: strict),
        // Bearer-injecting, refresh-once-on-401 session and token stores.
        .target(name: "OIDCSession", dependencies: ["OIDC", "JOSE"], swiftSettings: strict),
        // The receiving side: RFC 9068 access tokens, introspection, bearer parsing, back-channel logout.
        .target(name: "OIDCResourceServer", dependencies: ["OIDC", "JOSE"], swiftSettings: strict),
        // PostgreSQL's libpq: needed only by consumers of OIDCPostgres.
        .systemLibrary(name: "CLibPQ", pkgConfig: "libpq", providers: [.apt(["libpq-dev"]), .brew(["libpq"])]),
        // PostgreSQL token and pending-login stores with cross-replica single-flight refresh.
        .target(name: "OIDCPostgres", dependencies: ["OIDCSession", "OIDCResourceServer", "OIDC", "JOSE", "CLibPQ", "CLibCrypto"], swiftSettings: strict),
        // libssl, for the jwt-inspect's own small HTTPS client (URL options only).
        // (libssl itself is loaded with dlopen on the first https fetch, so offline runs never map it;
        // its headers come with libcrypto's, through CLibCrypto's pkg-config flags.)
        .systemLibrary(name: "CLibSSL"),
        // Offline decode/verify must not load FoundationNetworking: JOSE and OIDC use FoundationEssentials only.
        // Position-independent like every other executable (ASLR): it parses untrusted tokens and speaks TLS.
        .executableTarget(name: "jwt-inspect", dependencies: ["JOSE", "OIDC", "OIDCResourceServer", "CLibCrypto", "CLibSSL"], swiftSettings: strict),
        .executableTarget(name: "jose-bench", dependencies: ["JOSE", "CLibCrypto", "OIDC", "OIDCResourceServer"], swiftSettings: strict),
        .executableTarget(name: "jose-leak-check", dependencies: ["JOSE"], swiftSettings: strict),
        .executableTarget(name: "dpop-bench", dependencies: ["OIDC", "OIDCSession", "JOSE"], swiftSettings: strict),
        // What the FAPI samples share (arguments, key files, the client setup); not a product.
        .target(name: "FAPISampleSupport", dependencies: ["OIDC", "JOSE"], path: "Samples/FAPISampleSupport", swiftSettings: strict),
        sample("sample-fapi-login", ["FAPISampleSupport", "OIDC", "OIDCNetworking", "JOSE"]),
        sample("sample-fapi-finish", ["FAPISampleSupport", "OIDC", "OIDCNetworking", "OIDCSession", "JOSE"]),
        sample("sample-ciba", ["FAPISampleSupport", "OIDC", "OIDCNetworking", "JOSE"]),
        .executableTarget(name: "session-bench", dependencies: ["OIDC", "OIDCNetworking", "OIDCSession"], swiftSettings: strict),
        .executableTarget(name: "postgres-bench", dependencies: ["OIDC", "OIDCSession", "OIDCPostgres"], swiftSettings: strict),
        sample("sample-authorize-url", ["OIDC", "OIDCNetworking", "JOSE"]),
        sample("sample-exchange-code", ["OIDC", "JOSE", "OIDCNetworking", "OIDCSession"]),
        sample("sample-call-api", ["OIDC", "OIDCNetworking", "OIDCSession"]),
        sample("sample-read-claims", ["OIDC"]),
        sample("sample-port-token", ["OIDC", "OIDCNetworking"]),
        sample("sample-client-credentials", ["OIDC", "OIDCNetworking", "JOSE"]),
        sample("sample-resource-server", ["OIDC", "OIDCNetworking", "OIDCResourceServer", "JOSE"]),
        sample("sample-bearer-server", ["OIDC", "OIDCNetworking", "OIDCResourceServer", "JOSE"]),
        .testTarget(name: "JOSETests", dependencies: ["JOSE", "CLibCrypto"], resources: [.copy("Fixtures")], swiftSettings: strict),
        .testTarget(name: "OIDCTests", dependencies: ["OIDC", "JOSE"], swiftSettings: strict),
        .testTarget(name: "OIDCSessionTests", dependencies: ["OIDCSession", "OIDC", "JOSE"], swiftSettings: strict),
        .testTarget(name: "OIDCResourceServerTests", dependencies: ["OIDCResourceServer", "OIDC", "JOSE"], swiftSettings: strict),
        sample("sample-replica", ["OIDC", "OIDCNetworking", "OIDCSession", "OIDCPostgres"]),
        sample("sample-pending-login", ["OIDC", "OIDCNetworking", "OIDCSession", "OIDCPostgres", "JOSE"]),
        .testTarget(name: "OIDCPostgresTests", dependencies: ["OIDCPostgres", "OIDCSession", "OIDCResourceServer", "OIDC", "JOSE"], swiftSettings: strict),
        .testTarget(name: "JWTInspectTests", dependencies: ["JOSE"], swiftSettings: strict),
        // The README's partner back end and FAPI listings, compiled as written (ReadmeListingTests checks the README shows them).
        .testTarget(name: "ReadmeListing", dependencies: ["JOSE", "OIDC", "OIDCNetworking", "OIDCSession"], swiftSettings: strict),
        .testTarget(name: "IntegrationTests", dependencies: ["OIDC", "OIDCNetworking", "OIDCSession", "OIDCResourceServer", "JOSE"], swiftSettings: strict),
    ]
)
