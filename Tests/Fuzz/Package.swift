// swift-tools-version:6.1
// libFuzzer targets for the toolkit's parsers. Separate package so that the
// fuzzer/sanitizer flags only ever reach the modules a fuzz product needs
// (build one product at a time: see run.sh).
//
// Adding a fuzz target: create Sources/<name>/<Name>.swift defining
// `@_cdecl("LLVMFuzzerTestOneInput")` (see any existing target), seed
// Corpus/<name>/, and add ONE line to `fuzzTargets` below.
import PackageDescription

/// (target name, root-package modules it needs). Every target also gets FuzzSupport.
let fuzzTargets: [(name: String, modules: [String])] = [
    ("fuzz-base64url", ["JOSE"]),
    ("fuzz-json", ["JOSE"]),
    ("fuzz-jwk", ["JOSE"]),
    ("fuzz-pem", ["JOSE"]),
    ("fuzz-jws-compact", ["JOSE"]),
    ("fuzz-jws-json", ["JOSE"]),
    ("fuzz-jwe", ["JOSE"]),
    ("fuzz-jwt-claims", ["JOSE"]),
    ("fuzz-oidc-redirect", ["OIDC", "JOSE"]),
    ("fuzz-oidc-token-response", ["OIDC", "JOSE"]),
    ("fuzz-oidc-discovery", ["OIDC", "JOSE"]),
    ("fuzz-oidc-id-token", ["OIDC", "JOSE"]),
    ("fuzz-http-response", []),
]

let root = "swift-oidc-toolkit"

let package = Package(
    name: "toolkit-fuzz",
    platforms: [.macOS(.v15)],
    products: fuzzTargets.map { .executable(name: $0.name, targets: [$0.name]) },
    dependencies: [.package(name: root, path: "../..")],
    targets: [
        .target(name: "FuzzSupport", dependencies: [.product(name: "JOSE", package: root)])
    ]
        + fuzzTargets.map { target in
            .executableTarget(
                name: target.name,
                dependencies: ["FuzzSupport"] + target.modules.map { .product(name: $0, package: root) },
                swiftSettings: [.unsafeFlags(["-parse-as-library"])]
            )
        }
)
