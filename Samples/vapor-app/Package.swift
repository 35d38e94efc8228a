// swift-tools-version:6.1
// The Vapor 4 sample web application (Samples/vapor-app/README.md): the same command line, routes,
// cookies and answers as Samples/hummingbird-app, whose framework-neutral part (Samples/web-app-core)
// both use. Its own package so that the toolkit itself keeps zero package dependencies.
import PackageDescription

let strict: [SwiftSetting] = [
    .swiftLanguageMode(.v6),
    .enableUpcomingFeature("ExistentialAny"),
]

let package = Package(
    name: "vapor-app",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "vapor-app", targets: ["vapor-app"])
    ],
    dependencies: [
        // This repository, by path, so the sample builds in a checkout of any folder name.
        .package(name: "swift-oidc-toolkit", path: "../.."),
        .package(url: "https://github.com/vapor/vapor.git", from: "4.122.3"),
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-metrics.git", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-distributed-tracing.git", from: "1.7.3"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.0"),
        .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.37.6"),
        .package(url: "https://github.com/apple/swift-certificates.git", from: "1.21.1"),
        .package(url: "https://github.com/apple/swift-asn1.git", from: "1.7.4"),
    ],
    targets: [
        .executableTarget(
            name: "vapor-app",
            dependencies: [
                .product(name: "Vapor", package: "vapor"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
                .product(name: "JOSE", package: "swift-oidc-toolkit"),
                .product(name: "OIDC", package: "swift-oidc-toolkit"),
                .product(name: "OIDCSession", package: "swift-oidc-toolkit"),
                .product(name: "OIDCResourceServer", package: "swift-oidc-toolkit"),
                .product(name: "OIDCPostgres", package: "swift-oidc-toolkit"),
                .product(name: "OIDCRedis", package: "swift-oidc-toolkit"),
            ],
            // Shared is a link to Samples/web-app-shared: the framework-neutral part both sample apps compile.
            exclude: ["Shared/README.md"],
            swiftSettings: strict
        ),
        // Compiles one file that imports Vapor (and what it re-exports) and every toolkit module and uses Vapor's
        // names unqualified (Request, Response, Application, Environment, Client, Session, ...): it fails to build
        // if a toolkit name ever clashes with them.
        .target(
            name: "NameClashCheck",
            dependencies: [
                .product(name: "Vapor", package: "vapor"),
                .product(name: "JOSE", package: "swift-oidc-toolkit"),
                .product(name: "OIDC", package: "swift-oidc-toolkit"),
                .product(name: "OIDCNetworking", package: "swift-oidc-toolkit"),
                .product(name: "OIDCSession", package: "swift-oidc-toolkit"),
                .product(name: "OIDCResourceServer", package: "swift-oidc-toolkit"),
                .product(name: "OIDCPostgres", package: "swift-oidc-toolkit"),
                .product(name: "OIDCRedis", package: "swift-oidc-toolkit"),
            ],
            swiftSettings: strict
        ),
        // The glue's own tests (swift test): the access-token middleware, errors as answers, headers both ways.
        .testTarget(
            name: "VaporAppTests",
            dependencies: [
                "vapor-app",
                .product(name: "VaporTesting", package: "vapor"),
                .product(name: "JOSE", package: "swift-oidc-toolkit"),
                .product(name: "OIDC", package: "swift-oidc-toolkit"),
                .product(name: "OIDCResourceServer", package: "swift-oidc-toolkit"),
            ],
            swiftSettings: strict
        ),
    ]
)
