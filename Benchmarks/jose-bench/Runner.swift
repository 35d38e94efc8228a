import Foundation
import JOSE

enum Runner {
    /// Operations per second over `threads` threads running for about `seconds`.
    /// Each thread builds its own loop (its own libcrypto state) before timing starts.
    static func rate(threads: Int, seconds: Double, make: @escaping @Sendable () throws -> () throws -> Bool) throws -> Double {
        let counts = UnsafeMutableBufferPointer<Int>.allocate(capacity: threads)
        counts.initialize(repeating: 0)
        defer { counts.deallocate() }
        let failures = UnsafeMutableBufferPointer<Bool>.allocate(capacity: threads)
        failures.initialize(repeating: false)
        defer { failures.deallocate() }
        let countsBox = SendableBuffer(counts), failuresBox = SendableBuffer(failures)
        let start = DispatchTime.now().uptimeNanoseconds
        DispatchQueue.concurrentPerform(iterations: threads) { index in
            guard let loop = try? make() else { failuresBox.buffer[index] = true; return }
            let deadline = DispatchTime.now().uptimeNanoseconds + UInt64(seconds * 1e9)
            var done = 0
            while true {
                for _ in 0..<16 {
                    guard (try? loop()) == true else { failuresBox.buffer[index] = true; return }
                }
                done += 16
                if DispatchTime.now().uptimeNanoseconds >= deadline { break }
            }
            countsBox.buffer[index] = done
        }
        let elapsed = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        if failures.contains(true) { throw BenchError.libcrypto("a verification failed during the run") }
        return Double(counts.reduce(0, +)) / elapsed
    }

    static func median(_ values: [Double]) -> Double {
        let sorted = values.sorted()
        return sorted[sorted.count / 2]
    }
}

struct SendableBuffer<T>: @unchecked Sendable {
    let buffer: UnsafeMutableBufferPointer<T>
    init(_ buffer: UnsafeMutableBufferPointer<T>) { self.buffer = buffer }
}

enum BenchSupport {
    static func keysDirectory() -> URL {
        if let path = ProcessInfo.processInfo.environment["JOSE_KEYS"] { return URL(fileURLWithPath: path) }
        let cwd = URL(fileURLWithPath: FileManager.default.currentDirectoryPath).appendingPathComponent("Keys")
        if FileManager.default.fileExists(atPath: cwd.path) { return cwd }
        return URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Keys")
    }

    /// A realistic ~500-byte ID Token payload valid for the next hour.
    static func idTokenPayload() -> String {
        let now = Int(Date().timeIntervalSince1970)
        let claims: [(String, String)] = [
            ("iss", "\"https://login.example-provider.com/oauth2/default\""),
            ("sub", "\"00u1a2b3c4d5e6f7g8h9\""),
            ("aud", "[\"0oa9z8y7x6w5v4u3t2s1\",\"api://default\"]"),
            ("exp", "\(now + 3600)"), ("iat", "\(now)"), ("auth_time", "\(now - 30)"),
            ("nonce", "\"n-0S6_WzA2Mj-8f3b1c9d2e7a4\""), ("acr", "\"urn:mace:incommon:iap:silver\""),
            ("amr", "[\"pwd\",\"mfa\"]"), ("azp", "\"0oa9z8y7x6w5v4u3t2s1\""),
            ("sid", "\"08a5019c-17e1-4977-8f42-65a12843ea02\""),
            ("at_hash", "\"77QmUPtjPfzWtF2AnpK9RQ\""), ("email", "\"alice.example@example.com\""),
            ("email_verified", "true"), ("name", "\"Alice Example\""), ("locale", "\"en-GB\""),
            ("session_state", "\"6f0b3c2a-9d4e-4f1a-8b7c-5e6d7f8a9b0c\""),
        ]
        return "{" + claims.map { "\"\($0.0)\":\($0.1)" }.joined(separator: ",") + "}"
    }
}
