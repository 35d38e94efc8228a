// swift-tools-version:6.1
import PackageDescription

let strict: [SwiftSetting] = [
    .swiftLanguageMode(.v6),
    .enableUpcomingFeature("ExistentialAny"),
]

let package = Package(
    name: "swift-oidc-toolkit",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "JOSE", targets: ["JOSE"]),
        .executable(name: "jose-bench", targets: ["jose-bench"]),
    ],
    targets: [
        .systemLibrary(
            name: "CLibCrypto",
            pkgConfig: "libcrypto",
            providers: [.apt(["libssl-dev"]), .brew(["openssl@3"])]
        ),
        .target(
            name: "JOSE",
            dependencies: ["CLibCrypto"],
            swiftSettings: strict,
            linkerSettings: [.linkedLibrary("m", .when(platforms: [.linux]))]
        ),
        .executableTarget(
            name: "jose-bench",
            dependencies: ["JOSE", "CLibCrypto"],
            path: "Sources/jose-bench",
            swiftSettings: strict
        ),
        .testTarget(
            name: "JOSETests",
            dependencies: ["JOSE", "CLibCrypto"],
            resources: [.copy("Fixtures")],
            swiftSettings: strict
        ),
    ]
)
