// What the FAPI samples (sample-fapi-login, sample-fapi-finish, sample-ciba) share:
// argument parsing with their exit-code contract, key files, and the client setup.
import Foundation
import JOSE
import OIDC

/// A sample's command line: `--flag value` pairs; usage errors exit 2, typed errors exit 1.
public struct SampleCommand: Sendable {
    public let name: String
    public let usageLine: String
    public let values: [String: String]

    /// Parses `CommandLine.arguments` against `known` flags, requiring `required`.
    public init(name: String, usage: String, known: Set<String>, required: [String]) {
        self.name = name
        usageLine = usage
        var values: [String: String] = [:]
        var arguments = CommandLine.arguments.dropFirst()
        while let flag = arguments.popFirst() {
            guard known.contains(flag) else { Self.usage(name, usage, "unknown argument \(flag)") }
            guard let value = arguments.popFirst() else { Self.usage(name, usage, "\(flag) needs a value") }
            values[flag] = value
        }
        for flag in required where values[flag] == nil { Self.usage(name, usage, "\(flag) is required") }
        self.values = values
    }

    public subscript(flag: String) -> String? { values[flag] }

    /// A required flag's value (checked at parse time).
    public func required(_ flag: String) -> String { values[flag] ?? "" }

    /// Exits 2 with the message and the usage line.
    public func usage(_ message: String) -> Never { Self.usage(name, usageLine, message) }

    static func usage(_ name: String, _ line: String, _ message: String) -> Never {
        FileHandle.standardError.write(Data("\(name): \(message)\nusage: \(line)\n".utf8))
        exit(2)
    }

    /// Runs `body`; a thrown error goes to standard error with exit status 1.
    public func run(_ body: () async throws -> Void) async -> Never {
        do {
            try await body()
            exit(0)
        } catch {
            fail("\(error)")
        }
    }

    /// Writes `message` to standard error and exits 1.
    public func fail(_ message: String) -> Never {
        FileHandle.standardError.write(Data("\(name): \(message)\n".utf8))
        exit(1)
    }

    /// `--assertion-audience issuer|endpoint` (default `issuer`).
    public var assertionAudience: ClientAssertionAudience {
        switch values["--assertion-audience"] ?? "issuer" {
        case "issuer": return .issuer
        case "endpoint": return .endpointURL
        default: usage("--assertion-audience takes issuer or endpoint")
        }
    }
}

/// Key files: a private JWK (JSON) or a PEM private key.
public enum KeyFile {
    /// Reads the private key at `path`.
    public static func read(_ path: String) throws -> JWK {
        let text = try String(contentsOfFile: path, encoding: .utf8)
        let key = text.drop(while: { $0.isWhitespace }).first == "{" ? try JWK(json: text) : try JWK(pem: text)
        guard key.isPrivate, key.keyType != .oct else { throw OIDCError(.invalidTokenRequest, "\(path) does not hold an asymmetric private key") }
        return key
    }

    /// The DPoP key at `path`, or a new P-256 key written there (private JWK, mode 0600) when the file does not exist.
    public static func dpopKey(_ path: String) throws -> DPoPKey {
        if FileManager.default.fileExists(atPath: path) { return try DPoPKey(key: read(path)) }
        let key = try DPoPKey.generate()
        let text = try key.privateKey.privateJWKString() + "\n"
        guard FileManager.default.createFile(atPath: path, contents: Data(text.utf8), attributes: [.posixPermissions: 0o600]) else {
            throw OIDCError(.invalidTokenRequest, "could not create the DPoP key file \(path)")
        }
        return key
    }

    /// The JWS algorithm for a client key: ES256/ES384/ES512 by curve, EdDSA, PS256 for RSA.
    public static func algorithm(for key: JWK) -> JWSAlgorithm {
        switch key.keyType {
        case .ec(let curve): return curve.algorithm
        case .ed25519: return .eddsa
        case .mlDSA(let set): return set.algorithm
        case .rsa, .oct, .x25519: return .ps256
        }
    }

    /// Writes `text` to `path` with mode 0600 (replacing the file).
    public static func writePrivate(_ text: String, to path: String) throws {
        try? FileManager.default.removeItem(atPath: path)
        guard FileManager.default.createFile(atPath: path, contents: Data(text.utf8), attributes: [.posixPermissions: 0o600]) else {
            throw OIDCError(.invalidTokenRequest, "could not write \(path)")
        }
    }
}

/// The samples' login client, from the command's `--issuer`, `--client-id`, `--client-key`, `--dpop-key` and
/// `--assertion-audience`: ``OIDCClient`` (discovery) with private_key_jwt (the client key's algorithm) and a
/// DPoP binding; the login is pushed (PAR) and the code exchange, refresh and UserInfo are DPoP-bound by the client.
extension SampleCommand {
    public func fapiOIDCClient(transport: any HTTPTransport) async throws -> OIDCClient {
        var configuration = OIDCClient.Configuration()
        configuration.assertionAudience = assertionAudience  // a usage error (exit 2) before any file or network
        let key = try KeyFile.read(required("--client-key"))
        configuration.dpop = DPoPBinding(key: try KeyFile.dpopKey(required("--dpop-key")))
        return try await OIDCClient.discover(
            issuer: required("--issuer"),
            authentication: .privateKeyJWT(
                clientID: required("--client-id"), key: key,
                algorithm: KeyFile.algorithm(for: key)),
            transport: transport, configuration: configuration)
    }
}
