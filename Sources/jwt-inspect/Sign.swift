import JOSE

/// `jwt-inspect sign`: builds a claim set and a header from the command line and signs
/// them with JOSE's `JWT.sign` (the library's only signing path). Prints one compact JWS.
struct SignCommand {
    static let usage = """
        Usage: jwt-inspect sign (--key PATH | --secret-file PATH) [OPTIONS]

        Sign a JWT and print the compact JWS on standard output.

        Key (exactly one):
          --key PATH           private key: PEM (PKCS#8, PKCS#1, SEC1) or private JWK
          --secret-file PATH   raw HMAC secret bytes
        Claims (later ones replace earlier ones of the same name):
          --claims PATH        a JSON object of claims from a file; "-" reads standard input
          --claim NAME=VALUE   one claim; VALUE is JSON when it parses (5, true, ["a","b"],
                               {"k":1}, "quoted"), otherwise a string (repeatable)
          --exp TIME, --nbf TIME, --iat TIME
                               TIME: now, +15m, -1h, +30s, +2d, Unix seconds,
                               or a UTC date (2026-01-01T00:00:00Z, 2026-01-01)
          --now UNIX_SECONDS   what "now" means for TIME (default: the clock)
        Header:
          --alg ALG            default: the key's alg, else the first it admits of
                               ES256, EdDSA, RS256, HS256 (else its only algorithm):
                               RS256 for RSA, which every OpenID verifier supports;
                               PS256 only with --alg PS256; Ed25519 (RFC 9864) for an
                               Ed25519 key only with --alg Ed25519 or the key's alg;
                               ML-DSA-44/65/87: the AKP key's alg (OpenSSL 3.5 or later)
          --kid KID            key ID (default: the key's kid, if any)
          --typ TYP            (default JWT; --typ "" leaves it out)
          --header NAME=VALUE  extra header member, VALUE as for --claim (repeatable)
          --help

        Exit status: 0 signed, 2 usage or key error.
        """

    var keyPath: String?
    var secretFile: String?
    var claimsPath: String?
    /// One `NAME=VALUE` (a struct, not a tuple: tuple metadata is built at run time).
    struct Member { let name: String; let value: JSONValue }
    struct TimeClaim { let name: String; let text: String }

    var claims: [Member] = []
    var times: [TimeClaim] = []
    var now: Double?
    var algorithm: String?
    var header: [Member] = []
    var showHelp = false

    /// The default algorithm of a key without `alg`: RS256 for RSA (the algorithm every OpenID
    /// verifier must support, OpenID Connect Core §15.1), never PS256 unless asked for with `--alg`.
    static let preference: [JWSAlgorithm] = [.es256, .eddsa, .rs256, .hs256]

    static func parse(_ arguments: [String]) throws(UsageError) -> SignCommand {
        var command = SignCommand()
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
            case "--secret-file": command.secretFile = try value(argument)
            case "--claims": command.claimsPath = try value(argument)
            case "--claim": command.claims.append(try member(try value(argument), flag: argument))
            case "--exp", "--nbf", "--iat": command.times.append(TimeClaim(name: String(argument.dropFirst(2)), text: try value(argument)))
            case "--now":
                let text = try value(argument)
                guard let number = Double(text), number.isFinite, abs(number) <= Double(TimeArgument.limit) else {
                    throw UsageError("--now needs Unix seconds, not \"\(text)\"")
                }
                command.now = number
            case "--alg": command.algorithm = try value(argument)
            case "--kid": command.header.append(Member(name: "kid", value: .string(try value(argument))))
            case "--typ": command.header.append(Member(name: "typ", value: .string(try value(argument))))
            case "--header":
                let item = try member(try value(argument), flag: argument)
                guard item.name != "alg" else { throw UsageError("set the algorithm with --alg, not --header alg=...") }
                command.header.append(item)
            case "--help", "-h": command.showHelp = true
            default: throw UsageError("unknown sign option \(argument)")
            }
            index += 1
        }
        if command.showHelp { return command }
        guard (command.keyPath == nil) != (command.secretFile == nil) else {
            throw UsageError("sign needs exactly one of --key or --secret-file")
        }
        return command
    }

    /// `NAME=VALUE`: VALUE as JSON when it parses as JSON, otherwise as a string.
    static func member(_ text: String, flag: String) throws(UsageError) -> Member {
        guard let equals = text.firstIndex(of: "="), equals != text.startIndex else {
            throw UsageError("\(flag) takes NAME=VALUE, not \"\(text)\"")
        }
        let raw = String(text[text.index(after: equals)...])
        let value = (try? JSONParser.parse(raw)) ?? .string(raw)
        return Member(name: String(text[..<equals]), value: value)
    }

    func run() throws(Exit) {
        if showHelp { IO.write(Self.usage + "\n", to: 1); return }
        do {
            let key = try loadKey()
            let algorithm = try chooseAlgorithm(for: key)
            let token = try JWT.sign(try claimSet(), key: key, algorithm: algorithm, header: headerObject())
            IO.write(token + "\n", to: 1)
        } catch let error as UsageError {
            throw fail(2, "\(error.message)\nTry 'jwt-inspect sign --help'.")
        } catch let error as SetupError {
            throw fail(2, error.message)
        } catch let error as JOSEError {
            throw fail(2, "cannot sign: \(error)")
        } catch {
            throw fail(2, "cannot sign")
        }
    }

    func loadKey() throws -> JWK {
        if let path = secretFile {
            let secret = try IO.readFile(path)
            guard !secret.isEmpty else { throw SetupError("the secret file \(path) is empty") }
            return JWK(symmetricKey: secret)
        }
        guard let path = keyPath else { throw UsageError("sign needs --key or --secret-file") }
        let key = try KeyFile.read(path).key(path, privateHalf: true)
        guard key.isPrivate else { throw SetupError("the key file \(path) holds a public key; signing needs the private key") }
        return key
    }

    func chooseAlgorithm(for key: JWK) throws -> JWSAlgorithm {
        if let name = algorithm {
            guard let chosen = JWSAlgorithm(rawValue: name) else { throw UsageError("--alg \(name) is not a supported JWS algorithm") }
            return chosen
        }
        if let named = key.algorithm, let chosen = JWSAlgorithm(rawValue: named) { return chosen }
        let admitted = key.admittedAlgorithms
        if let chosen = Self.preference.first(where: { admitted.contains($0) }) { return chosen }
        if let only = admitted.sorted(by: { $0.rawValue < $1.rawValue }).first { return only }
        throw SetupError("the key admits no JWS algorithm")
    }

    func claimSet() throws -> JSONObject {
        var object = JSONObject()
        if let path = claimsPath {
            let bytes: [UInt8]
            if path == "-" {
                let input = IO.readStandardInput(limit: tokenLimit)
                guard !input.truncated else { throw SetupError("the claims on standard input are larger than \(tokenLimit) bytes") }
                bytes = input.bytes
            } else {
                bytes = try IO.readFile(path, limit: tokenLimit)
            }
            do {
                object = try JSONParser.parseObject(bytes, what: "the claims")
            } catch let error as JOSEError {
                throw SetupError("the claims in \(path == "-" ? "standard input" : path) are not a JSON object: \(error)")
            }
        }
        for claim in claims { object[claim.name] = claim.value }
        let current = (now ?? IO.currentTime()).rounded(.down).wholeInt64 ?? 0
        for time in times {
            object[time.name] = .integer(try TimeArgument.parse(time.text, flag: "--" + time.name, now: current))
        }
        return object
    }

    func headerObject() -> JSONObject {
        var object: JSONObject = ["typ": "JWT"]
        for member in header { object[member.name] = member.value }
        if object["typ"]?.stringValue == "" { object = JSONObject(object.filter { $0.name != "typ" }.map { ($0.name, $0.value) }) }
        return object
    }
}
