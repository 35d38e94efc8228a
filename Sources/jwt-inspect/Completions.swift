import JOSE

/// The commands and their usage texts: the single source for `--help`, the man page
/// (`--help-man`) and the shell completions (`completions bash|zsh`), so a flag added to
/// a usage text is documented and completed without a second list to forget.
enum CommandLineReference {
    struct Command {
        let name: String  // "" for the inspection itself
        let usage: String

        /// Every `--flag` the usage text names, in order, once.
        var flags: [String] {
            var seen: [String] = []
            for word in usage.split(whereSeparator: { $0 == " " || $0 == "\n" || $0 == "," || $0 == "(" || $0 == ")" || $0 == "[" || $0 == "]" || $0 == "|" }) {
                guard word.hasPrefix("--"), word.count > 2, word.dropFirst(2).allSatisfy({ $0.isLetter || $0.isNumber || $0 == "-" }) else { continue }
                let flag = String(word)
                if !seen.contains(flag) { seen.append(flag) }
            }
            return seen
        }

        /// The flags whose next word is a file path (`--key PATH`, `--claims PATH`).
        var pathFlags: [String] { flags.filter { usage.contains("\($0) PATH") } }
    }

    static let commands: [Command] = [
        Command(name: "", usage: Options.usage),
        Command(name: "sign", usage: SignCommand.usage),
        Command(name: "key", usage: KeyCommand.usage),
        Command(name: "encrypt", usage: EncryptCommand.usage),
        Command(name: "completions", usage: completionsUsage),
    ]

    static let completionsUsage = """
        Usage: jwt-inspect completions bash|zsh|--help

        Print a completion script for the shell:
          bash: source <(jwt-inspect completions bash)
          zsh:  jwt-inspect completions zsh > ~/.zfunc/_jwt-inspect  (with ~/.zfunc on fpath)

        Exit status: 0 printed, 2 usage error.
        """

    static let algorithms = "ES256 ES384 ES512 EdDSA Ed25519 ML-DSA-44 ML-DSA-65 ML-DSA-87 PS256 PS384 PS512 RS256 RS384 RS512 HS256 HS384 HS512"
    /// Fixed values of flags, for completion.
    static let choices: [(flag: String, values: String)] = [
        ("--alg", algorithms + " " + JWEKeyAlgorithm.allCases.map(\.rawValue).joined(separator: " ")),
        ("--enc", JWEContentEncryption.allCases.map(\.rawValue).joined(separator: " ")), ("--color", "auto always never"), ("--kty", "EC OKP RSA oct AKP"),
        ("--crv", "P-256 P-384 P-521 Ed25519 X25519"), ("--size", "256 2048 3072 4096"), ("--format", "jwk pem"),
        ("--as", TokenKind.allCases.map(\.rawValue).joined(separator: " ")),
    ]

    static var subcommands: [String] { commands.map(\.name).filter { !$0.isEmpty } }

    static func run(_ arguments: [String]) throws(Exit) {
        switch arguments.first {
        case "bash" where arguments.count == 1: IO.write(bash, to: 1)
        case "zsh" where arguments.count == 1: IO.write(zsh, to: 1)
        case "--help", "-h": IO.write(completionsUsage + "\n", to: 1)
        default: throw fail(2, "completions takes bash or zsh\nTry 'jwt-inspect completions --help'.")
        }
    }

    static var bash: String {
        var text = """
            # bash completion for jwt-inspect (jwt-inspect completions bash)
            _jwt_inspect() {
                local cur="${COMP_WORDS[COMP_CWORD]}" prev="${COMP_WORDS[COMP_CWORD-1]}" command="" words
                [ "$COMP_CWORD" -gt 1 ] && command="${COMP_WORDS[1]}"
                case "$prev" in

            """
        let paths = Set(commands.flatMap(\.pathFlags)).sorted()
        text += "        \(paths.joined(separator: "|"))) COMPREPLY=($(compgen -f -- \"$cur\")); return ;;\n"
        for choice in choices {
            text += "        \(choice.flag)) COMPREPLY=($(compgen -W \"\(choice.values)\" -- \"$cur\")); return ;;\n"
        }
        text += "    esac\n    case \"$command\" in\n"
        for command in commands where !command.name.isEmpty {
            let words = command.name == "completions" ? "bash zsh --help" : command.flags.joined(separator: " ")
            text += "        \(command.name)) words=\"\(words)\" ;;\n"
        }
        let top = (commands[0].flags + subcommands).joined(separator: " ")
        text += "        *) words=\"\(top)\" ;;\n    esac\n"
        text += "    COMPREPLY=($(compgen -W \"$words\" -- \"$cur\"))\n}\ncomplete -o default -F _jwt_inspect jwt-inspect\n"
        return text
    }

    static var zsh: String {
        var text = """
            #compdef jwt-inspect
            # zsh completion for jwt-inspect (jwt-inspect completions zsh > _jwt-inspect, on fpath)
            local command="" previous="${words[CURRENT-1]}"
            (( CURRENT > 2 )) && command="${words[2]}"
            case "$previous" in

            """
        let paths = Set(commands.flatMap(\.pathFlags)).sorted()
        text += "    \(paths.joined(separator: "|"))) _files; return ;;\n"
        for choice in choices {
            text += "    \(choice.flag)) compadd -- \(choice.values); return ;;\n"
        }
        text += "esac\ncase \"$command\" in\n"
        for command in commands where !command.name.isEmpty {
            let words = command.name == "completions" ? "bash zsh --help" : command.flags.joined(separator: " ")
            text += "    \(command.name)) compadd -- \(words) ;;\n"
        }
        text += "    *) compadd -- \((commands[0].flags + subcommands).joined(separator: " ")); _files ;;\nesac\n"
        return text
    }

    /// The man page (roff), from the usage texts.
    static var manPage: String {
        func escaped(_ line: String) -> String {
            var out = line.replacing("\\", with: "\\e")
            if out.hasPrefix(".") || out.hasPrefix("'") { out = "\\&" + out }
            return out
        }
        var text = """
            .TH JWT-INSPECT 1 "" "\(version)" "User Commands"
            .SH NAME
            jwt-inspect \\- decode, verify and sign JWTs; make and convert JWKs
            .SH SYNOPSIS
            .nf

            """
        var synopsis: [String] = []
        for command in commands {
            for line in command.usage.split(separator: "\n", omittingEmptySubsequences: false).prefix(1) {
                let entry = String(line.replacing("Usage:", with: "").drop(while: { $0 == " " }))
                if !synopsis.contains(entry) { synopsis.append(entry) }
            }
        }
        text += synopsis.map(escaped).joined(separator: "\n") + "\n.fi\n"
        for command in commands {
            text += ".SH \(command.name.isEmpty ? "INSPECT" : command.name.uppercased())\n.nf\n"
            for line in command.usage.split(separator: "\n", omittingEmptySubsequences: false).drop(while: { !$0.isEmpty }).dropFirst() {
                text += escaped(String(line)) + "\n"
            }
            text += ".fi\n"
        }
        text += """
            .SH EXIT STATUS
            .TP
            0
            decoded and every requested check passed; or the signed token, key or script was printed
            .TP
            1
            malformed token or a failed check
            .TP
            2
            usage, key or setup error
            .SH ENVIRONMENT
            NO_COLOR disables colour with --color auto; SSL_CERT_FILE names the trust anchors for https.

            """
        return text
    }
}
