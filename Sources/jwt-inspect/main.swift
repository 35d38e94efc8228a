// jwt-inspect: decode a JWS/JWT (or a JWE around one), show its header and claims, and verify it.
// Exit status: 0 decoded and every requested check passed, 1 malformed token
// or failed check, 2 usage or setup error. See Options.usage.
import JOSE
import OIDCTLSTransport

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

let version = "jwt-inspect 0.1.0"
let tokenLimit = JOSELimits.default.maxTokenBytes

/// How a run ends early: its message is already written; `status` is the exit status.
/// The run returns instead of calling `exit` deep inside, so every key and buffer is
/// released before the process ends (valgrind then reports nothing still held).
struct Exit: Error { let status: Int32 }

/// Writes `message` to standard error and returns the matching ``Exit``.
func fail(_ status: Int32, _ message: String) -> Exit {
    IO.write("jwt-inspect: \(TerminalText.escape(message, keepingNewlines: true))\n", to: 2)
    return Exit(status: status)
}

func inspectToken() throws(Exit) {
    let options: Options
    do {
        options = try Options.parse(Array(CommandLine.arguments.dropFirst()))
    } catch {
        throw fail(2, "\(error.message)\nTry 'jwt-inspect --help'.")
    }
    if options.showHelp { IO.write(Options.usage + "\n", to: 1); return }
    if options.showVersion { IO.write(version + "\n", to: 1); return }
    if options.showManPage { IO.write(CommandLineReference.manPage, to: 1); return }

    // The token: argument or standard input, whitespace around it ignored.
    var rawToken: [UInt8]
    if let token = options.token {
        rawToken = Array(token.utf8)
    } else {
        if IO.isTerminal(0) { IO.write("jwt-inspect: reading the token from standard input (Ctrl-D to end)\n", to: 2) }
        let input = IO.readStandardInput(limit: tokenLimit + 4096)
        if input.truncated {
            if options.json { IO.write(Renderer.jsonError(reason: "limit_exceeded", message: "input larger than \(tokenLimit) bytes"), to: 1) }
            throw fail(1, "the input is larger than \(tokenLimit) bytes, the token size limit: not a token?")
        }
        rawToken = input.bytes
    }
    var trimmed = TokenBytes.trimmingWhitespace(rawToken)

    func malformed(_ reason: String, _ message: String) -> Exit {
        if options.json { IO.write(Renderer.jsonError(reason: reason, message: message), to: 1) }
        return fail(1, "malformed token: \(message)")
    }
    if trimmed.isEmpty { throw malformed("malformed_token", "no token given (pass it as an argument or on standard input)") }
    if trimmed.contains(where: TokenBytes.isWhitespace) { throw malformed("malformed_token", "whitespace inside the token") }
    if options.sdJWT { return try SDJWTInspection.run(String(decoding: trimmed, as: UTF8.self), options: options) }

    let useColor: Bool
    switch options.color {
    case .always: useColor = true
    case .never: useColor = false
    case .auto: useColor = IO.isTerminal(1) && IO.environment("NO_COLOR") == nil
    }
    let renderer = Renderer(color: useColor, now: options.now ?? IO.currentTime())

    // A compact JWE: its protected header, and with --decrypt-key the JWS inside it.
    var encryption: Renderer.EncryptionLayer? = nil
    if DecryptionKeys.looksLikeJWE(trimmed) {
        let jwe: CompactJWE
        do {
            jwe = try CompactJWE(String(decoding: trimmed, as: UTF8.self))
        } catch let error as JOSEError {
            throw malformed(error.code.rawValue, error.reason)
        } catch {
            throw malformed("malformed_token", "unreadable JWE")
        }
        var layer = Renderer.EncryptionLayer(header: jwe.header.members)
        if options.decryptKeyPaths.isEmpty {
            IO.write(options.json ? renderer.json(encrypted: layer) : renderer.human(encrypted: layer), to: 1)
            return
        }
        let decryptionKeys: [JWK]
        do { decryptionKeys = try DecryptionKeys.load(options.decryptKeyPaths) } catch { throw fail(2, error.message) }
        do {
            let result = try DecryptionKeys.decrypt(jwe, with: decryptionKeys)
            trimmed = result.plaintext
            layer.check = Check(name: "decryption", status: .pass, reason: nil, message: "decrypted with the \(result.key)")
        } catch {
            layer.check = Check(name: "decryption", status: .fail, reason: error.code.rawValue, message: error.reason)
            IO.write(options.json ? renderer.json(encrypted: layer) : renderer.human(encrypted: layer), to: 1)
            throw fail(1, "decryption check failed: \(error.reason)")
        }
        encryption = layer
    }

    let jws: CompactJWS
    do {
        jws = try trimmed.withUnsafeBufferPointer { try CompactJWS(bytes: $0) }
    } catch let error as JOSEError {
        throw malformed(error.code.rawValue, error.reason)
    } catch {
        throw malformed("malformed_token", "unreadable token")
    }

    let keys: KeySource?
    do {
        keys = try KeySource.load(options)
    } catch {
        throw fail(2, error.message)
    }

    let now = options.now ?? IO.currentTime()
    var inspection: Inspection
    do {
        inspection = try Inspector(options: options, keys: keys, now: now).inspect(jws)
    } catch {
        throw fail(2, error.message)
    }

    let guessedKind = options.kind == nil ? TokenKind.guess(type: jws.header.type) : nil
    // A DPoP proof carries its key, so a guessed one is judged too (its validator needs no key source).
    if let kind = options.kind ?? (guessedKind == .dpopProof ? guessedKind : nil) {
        let line: Check
        do {
            line = try kind.judge(String(decoding: trimmed, as: UTF8.self), options: options, keys: keys, now: now, guessed: options.kind == nil)
        } catch {
            throw fail(2, "\(error.message)\nTry 'jwt-inspect --help'.")
        }
        if options.kind == nil {
            inspection.checks.append(
                Check(
                    name: "kind", status: .info, reason: nil,
                    message: "typ says \(kind.rawValue) (a guess from typ: judged as \(kind.rawValue); --as \(kind.rawValue) --htm --htu to check its request)")
            )
        }
        inspection.checks.append(line)
        if line.status == .fail, inspection.firstFailure == nil { inspection.claimsFailure = line }
        if kind == .dpopProof, line.status == .pass, keys == nil {
            inspection.signature = Check(name: "signature", status: .pass, reason: nil, message: "verified with the proof's own jwk header (RFC 9449)")
        }
    } else if let guessed = guessedKind {
        inspection.checks.append(
            Check(
                name: "kind", status: .info, reason: nil,
                message: "typ says \(guessed.rawValue) (a guess from typ: judge it with --as \(guessed.rawValue))"))
    }

    if let check = encryption?.check { inspection.checks.insert(check, at: 0) }
    IO.write(options.json ? renderer.json(inspection, encryption: encryption) : renderer.human(inspection, keys: keys, encryption: encryption), to: 1)
    if let failure = inspection.firstFailure {
        throw fail(1, "\(failure.name) check failed: \(failure.message)")
    }
}

/// The subcommands; anything else is a token to inspect (a token never equals these names).
/// Each subcommand's code runs only when named, so a plain decode pays nothing for it.
func runCommand() throws(Exit) {
    let arguments = Array(CommandLine.arguments.dropFirst())
    let rest = Array(arguments.dropFirst())
    switch arguments.first {
    case "sign":
        let command: SignCommand
        do { command = try SignCommand.parse(rest) } catch { throw fail(2, "\(error.message)\nTry 'jwt-inspect sign --help'.") }
        try command.run()
    case "encrypt":
        let command: EncryptCommand
        do { command = try EncryptCommand.parse(rest) } catch { throw fail(2, "\(error.message)\nTry 'jwt-inspect encrypt --help'.") }
        try command.run()
    case "key":
        let command: KeyCommand
        do { command = try KeyCommand.parse(rest) } catch { throw fail(2, "\(error.message)\nTry 'jwt-inspect key --help'.") }
        try command.run()
    case "sd-jwt":
        try SDJWTCommand.run(rest)
    case "completions":
        try CommandLineReference.run(rest)
    default:
        try inspectToken()
    }
}

let status: Int32
do {
    try runCommand()
    status = 0
} catch {
    status = error.status
}
exit(status)
