import JOSE

/// The verification key(s) named on the command line.
enum KeySource {
    case single(JWK)
    case set(JWKSet)

    /// Loads keys from `--key`, `--secret-file`, `--jwks-url` or `--issuer`; `nil` when none was given.
    /// The network sources go through OIDC's discovery and JWK Set code (see ``Network``).
    static func load(_ options: Options) throws(SetupError) -> KeySource? {
        if let path = options.keyPath { return try fromKeyFile(path) }
        if let path = options.secretFile {
            let secret = try IO.readFile(path)
            guard !secret.isEmpty else { throw SetupError("the secret file \(path) is empty") }
            return .single(JWK(symmetricKey: secret))
        }
        if let url = options.jwksURL { return .set(try Network.keySet(at: FetchURL.check(url, what: "--jwks-url"))) }
        if let issuer = options.issuerURL { return .set(try Network.keySet(issuer: issuer)) }
        return nil
    }

    static func fromKeyFile(_ path: String) throws(SetupError) -> KeySource {
        let file = try KeyFile.read(path)
        if case .set(let set) = file { return .set(set) }
        return .single(try file.key(path, privateHalf: false))
    }

    /// One line for the verdict, e.g. `RSA 2048-bit public key kid="abc"`.
    var summary: String {
        switch self {
        case .single(let key): return key.description
        case .set(let set): return "JWK Set of \(set.keys.count) keys" + (set.skipped.isEmpty ? "" : " (\(set.skipped.count) skipped)")
        }
    }
}
