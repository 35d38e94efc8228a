import JOSE

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// `jwt-inspect sd-jwt issue` and `jwt-inspect sd-jwt present`: JOSE's `SDJWT.issue`, `presenting` and
/// `addingKeyBinding` on the command line. Keys, algorithms and the claims file are read as `sign` reads them.
enum SDJWTCommand {
    static let usage = """
        Usage: jwt-inspect sd-jwt issue --key ISSUER_PRIVATE_KEY [--alg ALG] --claims FILE [--sd POINTER]...
                                        [--holder-key HOLDER_PUBLIC_KEY] [--typ TYP] [--decoys N]
               jwt-inspect sd-jwt present [--disclose POINTER]... [--holder-key HOLDER_PRIVATE_KEY --aud AUD --nonce NONCE] [TOKEN]

        issue: sign the claims of FILE (a JSON object) as an SD-JWT (RFC 9901) and print it with every
        disclosure (<JWT>~<d1>~...~<dn>~). Each POINTER (RFC 6901, e.g. /address/street_address or
        /nationalities/1) names a member or array element made selectively disclosable; pointers below a
        disclosable one give recursive disclosures. Adds _sd, _sd_alg (sha-256) and, with --holder-key,
        cnf {"jwk": ...}. Salts: 128 bits from the system's random source; --decoys N decoy digests.
        present: read an issued SD-JWT (TOKEN or standard input) and print a presentation with only the
        disclosures that reveal each POINTER (and their parents); with --holder-key, --aud and --nonce,
        a KB-JWT (typ kb+jwt, iat now, aud, nonce, sd_hash).
        Verify with: jwt-inspect --as sd-jwt --key ISSUER_KEY [--aud AUD --nonce NONCE] TOKEN

        Exit status: 0 printed, 1 an unreadable SD-JWT or a pointer naming nothing, 2 usage or key error.
        """

    static func run(_ arguments: [String]) throws(Exit) {
        switch arguments.first {
        case "issue": try issue(Array(arguments.dropFirst()))
        case "present": try present(Array(arguments.dropFirst()))
        case "--help", "-h": IO.write(usage + "\n", to: 1)
        default: throw fail(2, "sd-jwt takes issue or present\nTry 'jwt-inspect sd-jwt --help'.")
        }
    }

    /// The flags of a subcommand: name → values in order; positional arguments apart.
    struct Flags {
        var values: [String: [String]] = [:]
        var positional: [String] = []

        init(_ arguments: [String], taking names: Set<String>) throws(UsageError) {
            var index = 0
            while index < arguments.count {
                let argument = arguments[index]
                if names.contains(argument) {
                    index += 1
                    guard index < arguments.count else { throw UsageError("\(argument) needs a value") }
                    values[argument, default: []].append(arguments[index])
                } else if argument.hasPrefix("--") {
                    throw UsageError("unknown sd-jwt option \(argument)")
                } else {
                    positional.append(argument)
                }
                index += 1
            }
        }

        func one(_ name: String) throws(UsageError) -> String? {
            guard let list = values[name] else { return nil }
            guard list.count == 1 else { throw UsageError("\(name) is given more than once") }
            return list[0]
        }
    }

    static func issue(_ arguments: [String]) throws(Exit) {
        do {
            let flags = try Flags(arguments, taking: ["--key", "--alg", "--claims", "--sd", "--holder-key", "--typ", "--decoys"])
            guard flags.positional.isEmpty else { throw UsageError("sd-jwt issue takes no positional argument") }
            guard let keyPath = try flags.one("--key") else { throw UsageError("sd-jwt issue needs --key ISSUER_PRIVATE_KEY") }
            guard let claimsPath = try flags.one("--claims") else { throw UsageError("sd-jwt issue needs --claims FILE") }
            var signer = SignCommand()
            signer.keyPath = keyPath
            signer.claimsPath = claimsPath
            signer.algorithm = try flags.one("--alg")
            var decoys = 0
            if let text = try flags.one("--decoys") {
                guard let number = Int(text), (0...1000).contains(number) else { throw UsageError("--decoys takes a number from 0 to 1000") }
                decoys = number
            }
            let key = try signer.loadKey()
            let algorithm = try signer.chooseAlgorithm(for: key)
            var holder: JWK?
            if let path = try flags.one("--holder-key") { holder = try KeyFile.read(path).key(path, privateHalf: false) }
            let issued = try SDJWT.issue(
                claims: try signer.claimSet(), disclosable: flags.values["--sd"] ?? [], key: key, algorithm: algorithm,
                type: try flags.one("--typ"), holderKey: holder, decoys: decoys)
            IO.write(issued.compact + "\n", to: 1)
        } catch let error as UsageError {
            throw fail(2, "\(error.message)\nTry 'jwt-inspect sd-jwt --help'.")
        } catch let error as SetupError {
            throw fail(2, error.message)
        } catch let error as JOSEError {
            throw fail(error.code == .missingClaim || error.code == .claimMismatch || error.code.rawValue.hasPrefix("sd_") ? 1 : 2, "cannot issue: \(error)")
        } catch {
            throw fail(2, "cannot issue")
        }
    }

    static func present(_ arguments: [String]) throws(Exit) {
        do {
            let flags = try Flags(arguments, taking: ["--disclose", "--holder-key", "--aud", "--nonce"])
            guard flags.positional.count <= 1 else { throw UsageError("sd-jwt present takes at most one TOKEN") }
            let holderPath = try flags.one("--holder-key")
            let audience = try flags.one("--aud")
            let nonce = try flags.one("--nonce")
            let binding = [holderPath, audience, nonce].compactMap { $0 }.count
            guard binding == 0 || binding == 3 else { throw UsageError("a KB-JWT needs --holder-key, --aud and --nonce together") }
            var text: String
            if let token = flags.positional.first, token != "-" {
                text = token
            } else {
                let input = IO.readStandardInput(limit: tokenLimit + 4096)
                guard !input.truncated else { throw SetupError("the SD-JWT on standard input is larger than \(tokenLimit) bytes") }
                text = String(decoding: TokenBytes.trimmingWhitespace(input.bytes), as: UTF8.self)
            }
            text = String(decoding: TokenBytes.trimmingWhitespace(Array(text.utf8)), as: UTF8.self)
            var presentation = try SDJWT(text).presenting(flags.values["--disclose"] ?? [])
            if let holderPath, let audience, let nonce {
                var signer = SignCommand()
                signer.keyPath = holderPath
                let key = try signer.loadKey()
                presentation = try presentation.addingKeyBinding(
                    key: key, algorithm: try signer.chooseAlgorithm(for: key), audience: audience, nonce: nonce,
                    issuedAt: Date(timeIntervalSince1970: IO.currentTime()))
            }
            IO.write(presentation.compact + "\n", to: 1)
        } catch let error as UsageError {
            throw fail(2, "\(error.message)\nTry 'jwt-inspect sd-jwt --help'.")
        } catch let error as SetupError {
            throw fail(2, error.message)
        } catch let error as JOSEError {
            throw fail(1, "cannot present: \(error)")
        } catch {
            throw fail(2, "cannot present")
        }
    }
}
