import JOSE

/// `jwt-inspect key`: make a key, convert one between PEM and JWK, or list a JWK Set
/// as a table. Every key operation is JOSE's (`JWK.generate`, `privateJWK`,
/// `publicKeyPEM`, `thumbprint`, `JWKSet`); this file only chooses and prints.
struct KeyCommand {
    static let usage = """
        Usage: jwt-inspect key --kty EC|OKP|RSA|oct [--crv CRV] [--size BITS] [OPTIONS]
               jwt-inspect key --key PATH [--format jwk|pem] [--public]
               jwt-inspect key --table (--key PATH | --jwks-url URL | --issuer URL)

        Generate a key (--kty), convert a key file (--key), or list a JWK Set (--table).

        Generate:
          --kty EC --crv P-256|P-384|P-521,  --kty OKP --crv Ed25519|X25519,
          --kty RSA --size 2048|3072|4096,  --kty oct --size 256,
          --kty AKP --alg ML-DSA-44|ML-DSA-65|ML-DSA-87 (RFC 9964; OpenSSL 3.5 or later,
                               else algorithm_unavailable)
          --out PATH           write the private key to PATH (mode 0600, never overwritten)
                               and its public half to PATH with .pub before the extension;
                               print the thumbprint. Without --out: standard output gets the
                               private key, the public key and "thumbprint: ..."
          --kid KID            key ID (default: the RFC 7638 thumbprint)
          --use USE            "use" member (default sig)
          --alg ALG            "alg" member (default: none, the key admits its type's algorithms;
                               Ed25519 with --crv Ed25519: the RFC 9864 name, which sign then emits)
        Convert:
          --key PATH           PEM (public key, certificate, private key) or JWK
          --public             only the public half
        Generate and convert:
          --format jwk|pem     output form (default: jwk; converting: the other form)
        Table:
          --table              one line per key: kid, type, use, alg, RFC 7638 thumbprint;
                               keys the set holds but the library skips, with the reason.
                               Types: RSA, EC P-256/384/521, OKP Ed25519/X25519, oct, AKP
                               ML-DSA-44/65/87 (thumbprint over alg, kty, pub; listed even
                               where libcrypto lacks ML-DSA); algs include Ed25519 (RFC 9864)
          --jwks-url URL, --issuer URL   fetch the JWK Set (https; http only for loopback)
          --help

        Exit status: 0 done, 2 usage, key or setup error.
        """

    enum Format: String { case jwk, pem }

    var kty: String?
    var crv: String?
    var size: Int?
    var out: String?
    var kid: String?
    var use: String?
    var algorithm: String?
    var keyPath: String?
    var publicOnly = false
    var format: Format?
    var table = false
    var source = Options()
    var showHelp = false

    static func parse(_ arguments: [String]) throws(UsageError) -> KeyCommand {
        var command = KeyCommand()
        var index = 0
        func value(_ flag: String) throws(UsageError) -> String {
            index += 1
            guard index < arguments.count else { throw UsageError("\(flag) needs a value") }
            return arguments[index]
        }
        while index < arguments.count {
            let argument = arguments[index]
            switch argument {
            case "--kty": command.kty = try value(argument)
            case "--crv": command.crv = try value(argument)
            case "--size":
                let text = try value(argument)
                guard let bits = Int(text), bits > 0 else { throw UsageError("--size needs a number of bits, not \"\(text)\"") }
                command.size = bits
            case "--out": command.out = try value(argument)
            case "--kid": command.kid = try value(argument)
            case "--use": command.use = try value(argument)
            case "--alg": command.algorithm = try value(argument)
            case "--key": command.keyPath = try value(argument)
            case "--public": command.publicOnly = true
            case "--format":
                let text = try value(argument)
                guard let format = Format(rawValue: text) else { throw UsageError("--format takes jwk or pem") }
                command.format = format
            case "--table": command.table = true
            case "--jwks-url": command.source.jwksURL = try value(argument)
            case "--issuer": command.source.issuerURL = try value(argument)
            case "--help", "-h": command.showHelp = true
            default: throw UsageError("unknown key option \(argument)")
            }
            index += 1
        }
        if command.showHelp { return command }
        let modes = [command.kty != nil, command.table, command.keyPath != nil && !command.table].filter { $0 }.count
        guard modes == 1 else { throw UsageError("key needs one of --kty (generate), --key (convert) or --table") }
        if command.table {
            command.source.keyPath = command.keyPath
            let sources = [command.source.keyPath, command.source.jwksURL, command.source.issuerURL].compactMap { $0 }
            guard sources.count == 1 else { throw UsageError("--table needs one of --key, --jwks-url or --issuer") }
        }
        return command
    }

    func run() throws(Exit) {
        if showHelp { IO.write(Self.usage + "\n", to: 1); return }
        do {
            if table {
                guard let keys = try KeySource.load(source) else { throw UsageError("--table needs a key source") }
                IO.write(KeyTable.render(keys), to: 1)
            } else if let keyPath {
                try convert(keyPath)
            } else {
                try generate()
            }
        } catch let error as UsageError {
            throw fail(2, "\(error.message)\nTry 'jwt-inspect key --help'.")
        } catch let error as SetupError {
            throw fail(2, error.message)
        } catch let error as JOSEError {
            throw fail(2, "key: \(error)")
        } catch {
            throw fail(2, "key: failed")
        }
    }

    func convert(_ path: String) throws {
        let file = try KeyFile.read(path)
        var key = try file.key(path, privateHalf: !publicOnly)
        if let kid { key.keyID = kid }
        if let use { key.use = use }
        if let algorithm { key.algorithm = algorithm }
        var form = format
        if form == nil { if case .pem = file { form = .jwk } else { form = .pem } }
        IO.write(try Self.text(key, form ?? .jwk, publicOnly: publicOnly || !key.isPrivate), to: 1)
    }

    /// The key in `format`, private unless `publicOnly`; one trailing newline.
    static func text(_ key: JWK, _ format: Format, publicOnly: Bool) throws -> String {
        switch (format, publicOnly) {
        case (.jwk, true): return key.publicJWKString + "\n"
        case (.jwk, false): return try key.privateJWKString() + "\n"
        case (.pem, true): return try key.publicKeyPEM()
        case (.pem, false): return try key.privateKeyPEM()
        }
    }
}
