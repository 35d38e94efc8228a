// swift-tools-version:6.1
// The Hummingbird 2 sample web application (Samples/hummingbird-app/README.md).
// Its own package so that the toolkit itself keeps zero package dependencies.
import PackageDescription

let strict: [SwiftSetting] = [
    .swiftLanguageMode(.v6),
    .enableUpcomingFeature("ExistentialAny"),
]

let package = Package(
    name: "hummingbird-app",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "hummingbird-app", targets: ["hummingbird-app"])
    ],
    dependencies: [
        // This repository, by path, so the sample builds in a checkout of any folder name.
        .package(name: "swift-oidc-toolkit", path: "../.."),
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1"),
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-metrics.git", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-distributed-tracing.git", from: "1.7.3"),
        .package(url: "https://github.com/apple/swift-http-types.git", from: "1.8.0"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.0"),
        .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.37.6"),
        // The MCP endpoint (`--mcp`): the Model Context Protocol's Streamable HTTP server transport.
        .package(url: "https://github.com/modelcontextprotocol/swift-sdk.git", exact: "0.12.1"),
    ],
    targets: [
        .executableTarget(
            name: "hummingbird-app",
            dependencies: [
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTLS", package: "hummingbird"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "JOSE", package: "swift-oidc-toolkit"),
                .product(name: "OIDC", package: "swift-oidc-toolkit"),
                .product(name: "OIDCSession", package: "swift-oidc-toolkit"),
                .product(name: "OIDCResourceServer", package: "swift-oidc-toolkit"),
                .product(name: "OIDCPostgres", package: "swift-oidc-toolkit"),
                .product(name: "MCP", package: "swift-sdk"),
                .product(name: "OIDCSharedSignals", package: "swift-oidc-toolkit"),
                .product(name: "OIDCRedis", package: "swift-oidc-toolkit"),
            ],
            // Shared is a link to Samples/web-app-shared: the framework-neutral part both sample apps compile.
            exclude: ["Shared/README.md"],
            swiftSettings: strict
        ),
        // Compiles one file that imports the ecosystem's modules and every toolkit module
        // and uses the ecosystem's names unqualified (HTTPRequest, Logger, Request, ...):
        // it fails to build if a toolkit name ever clashes with them again.
        .target(
            name: "NameClashCheck",
            dependencies: [
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "JOSE", package: "swift-oidc-toolkit"),
                .product(name: "OIDC", package: "swift-oidc-toolkit"),
                .product(name: "OIDCNetworking", package: "swift-oidc-toolkit"),
                .product(name: "OIDCSession", package: "swift-oidc-toolkit"),
                .product(name: "OIDCResourceServer", package: "swift-oidc-toolkit"),
                .product(name: "OIDCPostgres", package: "swift-oidc-toolkit"),
                .product(name: "OIDCSharedSignals", package: "swift-oidc-toolkit"),
                .product(name: "OIDCRedis", package: "swift-oidc-toolkit"),
            ],
            swiftSettings: strict
        ),
        // The app's own unit tests (swift test): the login's store order and bounds, the replay caches kept apart.
        .testTarget(
            name: "HummingbirdAppTests",
            dependencies: [
                "hummingbird-app",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "JOSE", package: "swift-oidc-toolkit"),
                .product(name: "OIDC", package: "swift-oidc-toolkit"),
                .product(name: "OIDCSession", package: "swift-oidc-toolkit"),
                .product(name: "OIDCResourceServer", package: "swift-oidc-toolkit"),
            ],
            swiftSettings: strict
        ),
    ]
)
