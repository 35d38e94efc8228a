import Foundation
import Testing

/// The man page and the shell completions cover every flag each command's `--help` names.
@Suite("jwt-inspect man page and completions")
struct CLIReferenceTests {
    /// The subcommands (plus the inspection itself, "") whose usage is checked.
    static let commands = ["", "sign", "key", "completions"]

    /// `--flags` in a text, found independently of the tool's own extraction.
    static func flags(in text: String) -> Set<String> {
        let pattern = try! NSRegularExpression(pattern: "(?<![A-Za-z0-9-])--[a-z][a-z0-9-]*")  // test-only, fixed pattern
        let range = NSRange(text.startIndex..., in: text)
        return Set(pattern.matches(in: text, range: range).compactMap { Range($0.range, in: text).map { String(text[$0]) } })
    }

    static func usage(_ command: String) async throws -> String? {
        let run = try await CLI.run((command.isEmpty ? [] : [command]) + ["--help"])
        guard run.status == 0 else { return nil }  // a command not built yet
        return run.stdout
    }

    @Test("every flag of every usage text is in the man page, the bash and the zsh completions")
    func everyFlagDocumented() async throws {
        let man = try await CLI.run(["--help-man"])
        let bash = try await CLI.run(["completions", "bash"])
        let zsh = try await CLI.run(["completions", "zsh"])
        #expect(man.status == 0 && bash.status == 0 && zsh.status == 0)
        #expect(man.stdout.hasPrefix(".TH JWT-INSPECT 1"))
        #expect(man.stdout.contains(".SH EXIT STATUS"))
        var checked = 0
        for command in Self.commands {
            guard let usage = try await Self.usage(command) else {
                #expect(command == "key", "jwt-inspect \(command) --help failed")
                continue
            }
            let flags = Self.flags(in: usage)
            #expect(!flags.isEmpty)
            for flag in flags {
                #expect(man.stdout.contains(flag), "man page lacks \(flag) of '\(command)'")
                #expect(bash.stdout.contains(flag), "bash completion lacks \(flag) of '\(command)'")
                #expect(zsh.stdout.contains(flag), "zsh completion lacks \(flag) of '\(command)'")
                checked += 1
            }
            #expect(usage.contains("Exit status"), "'\(command) --help' names its exit statuses")
            if !command.isEmpty {
                #expect(bash.stdout.contains("\(command))"), "bash completion has a case for \(command)")
                #expect(man.stdout.contains(".SH \(command.uppercased())"))
            }
        }
        #expect(checked > 30)
    }

    @Test("the man page renders with man -l")
    func manRenders() async throws {
        guard let man = External.which("man") else { return }
        let page = try await CLI.run(["--help-man"])
        let rendered = try await External.run(man, ["-l", "-"], stdin: Data(page.stdout.utf8))
        #expect(rendered.status == 0, "\(rendered.stderr)")
        #expect(rendered.stdout.contains("EXIT STATUS"))
        #expect(rendered.stdout.contains("--secret-file"))
    }

    /// Runs the bash completion function for a command line ending in `current`.
    static func complete(_ words: [String]) async throws -> [String] {
        let script = try await CLI.run(["completions", "bash"]).stdout
        let quoted = words.map { "'\($0)'" }.joined(separator: " ")
        let program = script + "\nCOMP_WORDS=(\(quoted)); COMP_CWORD=\(words.count - 1); _jwt_inspect; printf '%s\\n' \"${COMPREPLY[@]}\"\n"
        let run = try await External.run("/bin/bash", ["-c", program])
        #expect(run.status == 0, "\(run.stderr)")
        return run.stdout.split(separator: "\n").map(String.init)
    }

    @Test("bash completion completes subcommands, flags per subcommand and flag values")
    func bashCompletion() async throws {
        #expect(try await Self.complete(["jwt-inspect", "si"]) == ["sign"])
        #expect(Set(try await Self.complete(["jwt-inspect", "sign", "--k"])) == ["--key", "--kid"])
        #expect(try await Self.complete(["jwt-inspect", "--jw"]) == ["--jwks-url"])
        #expect(Set(try await Self.complete(["jwt-inspect", "sign", "--alg", "PS"])) == ["PS256", "PS384", "PS512"])
        #expect(try await Self.complete(["jwt-inspect", "completions", "z"]) == ["zsh"])
        #expect(try await Self.complete(["jwt-inspect", "--as", "acc"]) == ["access-token"])
        #expect(Set(try await Self.complete(["jwt-inspect", "key", "--kty", "EC", "--crv", "P-"])) == ["P-256", "P-384", "P-521"])
        #expect(try await Self.complete(["jwt-inspect", "--key", "Keys/p256.pub.j"]) == ["Keys/p256.pub.jwk"])
    }

    @Test("completions refuses an unknown shell (exit 2)")
    func unknownShell() async throws {
        let run = try await CLI.run(["completions", "fish"])
        #expect(run.status == 2)
        #expect(run.stderr.contains("bash or zsh"))
    }
}
