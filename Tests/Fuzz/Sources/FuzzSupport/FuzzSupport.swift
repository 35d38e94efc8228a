import JOSE

// Shared by every fuzz target: the fixed keys from the repository's Keys/
// (loaded once, on first use), and helpers that keep results observable so the
// optimizer cannot drop the work under test.
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif

public enum Fuzz {
    /// The repository's Keys/ directory (this file is Tests/Fuzz/Sources/FuzzSupport/FuzzSupport.swift),
    /// overridable with FUZZ_KEYS_DIR.
    public static let keysDirectory: String = {
        if let dir = ProcessInfo.processInfo.environment["FUZZ_KEYS_DIR"] { return dir }
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<5 { url.deleteLastPathComponent() }
        return url.appendingPathComponent("Keys").path
    }()

    public static func keyFile(_ name: String) -> String {
        let path = keysDirectory + "/" + name
        guard let data = FileManager.default.contents(atPath: path), let text = String(data: data, encoding: .utf8) else {
            fatalError("fuzz: cannot read \(path)")
        }
        return text
    }

    /// The public JWK Set (RSA 2048/3072, P-256/384/521, Ed25519) plus the HMAC key.
    public static let keySet: JWKSet = {
        do {
            let set = try JWKSet(json: keyFile("jwks.json"))
            return JWKSet(keys: set.keys.map(pinned) + [hmacKey])
        } catch { fatalError("fuzz: Keys/jwks.json: \(error)") }
    }()

    public static let hmacKey: JWK = load("hmac.jwk")

    /// One key per key type, each also tried on its own.
    public static let singleKeys: [JWK] = [load("rsa2048.pub.jwk"), load("p256.pub.jwk"), load("ed25519.pub.jwk"), hmacKey]

    /// Default policy (what a relying party uses) and a permissive one that lets more
    /// inputs reach the signature code (unencoded payloads, `crit: ["b64"]`, short HMAC keys, mixed sets).
    public static let policies: [JWSVerificationPolicy] = [
        .default,
        JWSVerificationPolicy(
            minimumRSAKeyBits: 2048, allowsShortHMACKeys: true, understoodCriticalHeaders: ["b64", "exp"],
            allowsUnencodedPayload: true, allowsMixedKeySets: true),
    ]

    static func load(_ name: String) -> JWK {
        do { return pinned(try JWK(json: keyFile(name))) } catch { fatalError("fuzz: Keys/\(name): \(error)") }
    }

    /// Objects of the process-lifetime keys, held by plain references.
    ///
    /// `JWK.Storage` is a two-payload enum of class references, and Swift keeps the case tag
    /// in the spare (high) bits of the pointer: a global `.symmetric(SecretBytes)` key is
    /// stored as a tagged pointer that LeakSanitizer does not recognize, so the HMAC key and
    /// the MAC contexts it pools during verification would be reported as leaked. Holding
    /// the payload here as well makes it visibly reachable; nothing else is suppressed.
    nonisolated(unsafe) static var pinnedObjects: [AnyObject] = []

    static func pinned(_ key: JWK) -> JWK {
        // A JWK is one reference to its core; the core holds `storage`.
        let before = pinnedObjects.count
        for core in Mirror(reflecting: key).children where core.label == "core" {
            for member in Mirror(reflecting: core.value).children where member.label == "storage" {
                for payload in Mirror(reflecting: member.value).children {
                    pinnedObjects.append(payload.value as AnyObject)
                }
            }
        }
        if pinnedObjects.count == before { fatalError("fuzz: JWK no longer has core.storage; update Fuzz.pinned") }
        return key
    }

    /// Forces key loading before the first input so start-up cost is not charged to it.
    public static func warmUp() {
        _ = keySet
        _ = singleKeys
        _ = policies
    }

    /// The input as a String only if it is valid UTF-8 (what callers of the String APIs can pass);
    /// otherwise the repaired String, so that both paths are exercised.
    public static func string(_ data: UnsafePointer<UInt8>, _ size: Int) -> String {
        String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    }

    public static func bytes(_ data: UnsafePointer<UInt8>, _ size: Int) -> [UInt8] {
        Array(UnsafeBufferPointer(start: data, count: size))
    }
}

/// Keeps a value alive and observable (an opaque call the optimizer must honour).
@inline(never)
public func blackHole<T>(_ value: T) {
    withExtendedLifetime(value) {}
    _blackHoleSink &+= 1
}
nonisolated(unsafe) public var _blackHoleSink = 0

// MARK: - Entry point

@_silgen_name("LLVMFuzzerRunDriver")
func LLVMFuzzerRunDriver(
    _ argc: UnsafeMutablePointer<CInt>,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
    _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt
) -> CInt

extension Fuzz {
    /// Stands in for a null data pointer (size 0), so targets can take a non-optional pointer.
    nonisolated(unsafe) public static let emptyInput: UnsafePointer<UInt8> = UnsafePointer(UnsafeMutablePointer<UInt8>.allocate(capacity: 1))

    /// Runs libFuzzer's driver (all the usual libFuzzer flags) on `testOneInput`.
    ///
    /// SwiftPM links every executable product with `main` aliased to the module's
    /// own entry point, so libFuzzer's `main` is never used; each target's `@main`
    /// calls this instead. The target still exports `LLVMFuzzerTestOneInput`
    /// (and optionally `LLVMFuzzerInitialize`, which the driver calls) so the
    /// object also links with a plain `swiftc -sanitize=fuzzer`.
    public static func main(_ testOneInput: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt) -> Never {
        var argc = CommandLine.argc
        var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
        let status = withUnsafeMutablePointer(to: &argc) { argcPointer in
            withUnsafeMutablePointer(to: &argv) { argvPointer in
                LLVMFuzzerRunDriver(argcPointer, argvPointer, testOneInput)
            }
        }
        exit(status)
    }
}
