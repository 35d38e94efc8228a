import JOSE

/// The JWE layer of an inspection: the keys of `--decrypt-key` (each a JWK — `oct`
/// too —, a JWK Set or a PEM private key) and the decryption of a compact JWE with
/// JOSE's `CompactJWE` under its default policy (RSA1_5, PBES2 and `zip` refused).
enum DecryptionKeys {
    /// Every key of every file, in the order given.
    static func load(_ paths: [String]) throws(SetupError) -> [JWK] {
        var keys: [JWK] = []
        for path in paths {
            switch try KeyFile.read(path) {
            case .set(let set): keys += set.keys
            case let file: keys.append(try file.key(path, privateHalf: true))
            }
        }
        return keys
    }

    /// Decrypts `jwe` with JOSE's one selection rule (``JWEDecryptionKeys``, as the OIDC client uses):
    /// keys with the header's `kid` first, then keys that fit without one, each only if it admits the
    /// token's `alg` and `enc`.
    static func decrypt(_ jwe: CompactJWE, with keys: [JWK]) throws(JOSEError) -> (plaintext: [UInt8], key: JWK) {
        do {
            return try JWEDecryptionKeys(keys: keys).decrypt(jwe)
        } catch let error as JOSEError {
            throw error
        } catch {
            throw JOSEError(.decryptionFailed, "the JWE could not be decrypted")
        }
    }

    /// Whether `bytes` has the shape of a compact JWE (five dot-separated segments).
    static func looksLikeJWE(_ bytes: [UInt8]) -> Bool {
        bytes.reduce(0) { $0 + ($1 == UInt8(ascii: ".") ? 1 : 0) } == 4
    }
}

/// `jwt-inspect encrypt`: encrypts standard input to a key with JOSE's `CompactJWE.encrypt`.
struct EncryptCommand {
    static let usage = """
        Usage: jwt-inspect encrypt --key PATH [--alg ALG] [--enc ENC] < PLAINTEXT

        Encrypt standard input (a signed JWT, say) and print the compact JWE. A compact
        JWS as input gets cty: JWT (a nested JWT, RFC 7519 §5.2).

          --key PATH           the recipient's public key (PEM, JWK) or a shared oct JWK
          --alg ALG            key management: RSA-OAEP-256 RSA-OAEP ECDH-ES ECDH-ES+A128KW
                               ECDH-ES+A192KW ECDH-ES+A256KW A128KW A192KW A256KW A128GCMKW
                               A192GCMKW A256GCMKW dir; default: the key's alg, else
                               RSA-OAEP-256 (RSA), ECDH-ES (EC, X25519), A*KW by size (oct)
          --enc ENC            content encryption: A128GCM A192GCM A256GCM A128CBC-HS256
                               A192CBC-HS384 A256CBC-HS512 (default A256GCM)
          --help

        Exit status: 0 encrypted, 2 usage or key error.
        """

    var keyPath: String?
    var algorithm: String?
    var encryption: String?
    var showHelp = false

    static func parse(_ arguments: [String]) throws(UsageError) -> EncryptCommand {
        var command = EncryptCommand()
        var index = 0
        func value(_ flag: String) throws(UsageError) -> String {
            index += 1
            guard index < arguments.count else { throw UsageError("\(flag) needs a value") }
            return arguments[index]
        }
        while index < arguments.count {
            let argument = arguments[index]
            switch argument {
            case "--key": command.keyPath = try value(argument)
            case "--alg": command.algorithm = try value(argument)
            case "--enc": command.encryption = try value(argument)
            case "--help", "-h": command.showHelp = true
            default:
                throw UsageError(
                    argument.hasPrefix("--") ? "unknown option \(argument)" : "encrypt reads the plaintext from standard input, not \"\(argument)\"")
            }
            index += 1
        }
        if !command.showHelp, command.keyPath == nil { throw UsageError("encrypt needs --key PATH") }
        if let text = command.algorithm, JWEKeyAlgorithm(rawValue: text) == nil {
            throw UsageError("--alg takes \(JWEKeyAlgorithm.allCases.map(\.rawValue).joined(separator: ", ")), not \"\(text)\"")
        }
        if let text = command.encryption, JWEContentEncryption(rawValue: text) == nil {
            throw UsageError("--enc takes \(JWEContentEncryption.allCases.map(\.rawValue).joined(separator: ", ")), not \"\(text)\"")
        }
        return command
    }

    /// The key management algorithm: `--alg`, else the key's `alg`, else by key type.
    static func defaultAlgorithm(for key: JWK) -> JWEKeyAlgorithm? {
        if let name = key.algorithm, let algorithm = JWEKeyAlgorithm(rawValue: name) { return algorithm }
        switch key.keyType {
        case .rsa: return .rsaOAEP256
        case .ec, .x25519: return .ecdhES
        case .oct: return [16: .a128KW, 24: .a192KW, 32: .a256KW][key.sizeInBits / 8]
        case .ed25519, .mlDSA: return nil
        }
    }

    func run() throws(Exit) {
        if showHelp { IO.write(Self.usage + "\n", to: 1); return }
        guard let keyPath else { throw fail(2, "encrypt needs --key PATH") }
        let key: JWK
        do { key = try KeyFile.read(keyPath).key(keyPath, privateHalf: false) } catch { throw fail(2, error.message) }
        guard let chosen = algorithm.flatMap(JWEKeyAlgorithm.init(rawValue:)) ?? Self.defaultAlgorithm(for: key) else {
            throw fail(2, "a \(key.keyType) key cannot encrypt; give an RSA, EC, X25519 or oct key (or --alg)")
        }
        let contentEncryption = encryption.flatMap(JWEContentEncryption.init(rawValue:)) ?? .a256GCM
        let input = IO.readStandardInput(limit: tokenLimit)
        guard !input.truncated else { throw fail(2, "the input is larger than \(tokenLimit) bytes") }
        let whitespace: Set<UInt8> = [0x20, 0x09, 0x0A, 0x0D]
        let trimmed = Array(input.bytes.drop(while: { whitespace.contains($0) }).reversed().drop(while: { whitespace.contains($0) }).reversed())
        let isJWS = (try? trimmed.withUnsafeBufferPointer { try CompactJWS(bytes: $0) }) != nil
        do {
            let token = try CompactJWE.encrypt(
                isJWS ? trimmed : input.bytes, to: key, algorithm: chosen, encryption: contentEncryption,
                contentType: isJWS ? "JWT" : nil)
            IO.write(token + "\n", to: 1)
        } catch {
            throw fail(2, "cannot encrypt to \(keyPath): \(error)")
        }
    }
}
