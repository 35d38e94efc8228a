import Foundation

@testable import JOSE

/// Locates the repository's `Keys/` folder from this source file.
enum TestKeys {
    static let directory = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Keys")

    static func text(_ name: String) throws -> String {
        try String(contentsOf: directory.appendingPathComponent(name), encoding: .utf8)
    }
    static func jwk(_ name: String) throws -> JWK { try JWK(json: text(name)) }
    static func pem(_ name: String) throws -> JWK { try JWK(pem: text(name)) }

    /// Private key file, public key file and algorithm for every asymmetric algorithm.
    static let asymmetric: [(privateName: String, publicName: String, algorithm: JWSAlgorithm)] = [
        ("rsa2048", "rsa2048.pub", .rs256), ("rsa2048", "rsa2048.pub", .rs384), ("rsa2048", "rsa2048.pub", .rs512),
        ("rsa3072", "rsa3072.pub", .ps256), ("rsa3072", "rsa3072.pub", .ps384), ("rsa3072", "rsa3072.pub", .ps512),
        ("p256", "p256.pub", .es256), ("p384", "p384.pub", .es384), ("p521", "p521.pub", .es512),
        ("ed25519", "ed25519.pub", .eddsa),
    ]
}
