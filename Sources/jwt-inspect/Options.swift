import JOSE

/// The command line of `jwt-inspect` (see `usage`). Names are a contract:
/// scripts and tests depend on them.
struct Options {
    enum ColorMode: String { case auto, always, never }

    var token: String?
    var keyPath: String?
    var decryptKeyPaths: [String] = []
    var secretFile: String?
    var jwksURL: String?
    var issuerURL: String?
    var algorithms: [String] = []
    var expectedIssuer: String?
    var expectedAudience: String?
    var expectedNonce: String?
    var requiredClaims: [String] = []
    var leeway: Double = 60
    var kind: TokenKind?
    /// `--as sd-jwt`: judged by the SD-JWT verifier (SDJWTInspection), not a ``TokenKind``.
    var sdJWT = false
    /// `--as sd-jwt-vc`: the same with the SD-JWT VC rules.
    var sdJWTVC = false
    /// `--check-status`: sd-jwt-vc, the credential's Token Status List fetched and its entry checked.
    var checkStatus = false
    /// `--allow-host HOST:PORT`: hosts a credential may name (jwks_uri, status list) admitted by name.
    var allowedHosts: [String] = []
    var requiredScopes: [String] = []
    var dpopMethod: String?
    var dpopURI: String?
    var dpopAccessTokenHash: String?
    var dpopProof: String?
    var now: Double?
    var json = false
    var color: ColorMode = .auto
    var showHelp = false
    var showVersion = false
    var showManPage = false

    static let usage = """
        Usage: jwt-inspect [OPTIONS] [TOKEN]
               jwt-inspect sign --key PATH [--claim NAME=VALUE]... (see jwt-inspect sign --help)
               jwt-inspect key (--kty KTY | --key PATH | --table ...) (see jwt-inspect key --help)
               jwt-inspect encrypt --key PATH [--alg ALG] [--enc ENC] < JWS (see jwt-inspect encrypt --help)
               jwt-inspect sd-jwt issue|present ... (see jwt-inspect sd-jwt --help)
               jwt-inspect completions bash|zsh

        Decode a JWS/JWT, show its header and claims, and verify it.
        TOKEN is the compact token; absent or "-" reads it from standard input.
        A compact JWE shows its protected header; with --decrypt-key it is decrypted
        and the JWS inside it inspected.

        Keys (at most one source):
          --key PATH           PEM (public key, certificate or private key), JWK, or JWK Set
                               (a set's keys of unknown types are skipped; a token naming
                               one by kid fails with unsupported_key_type)
          --secret-file PATH   raw HMAC secret bytes
          --jwks-url URL       fetch a JWK Set
          --issuer URL         fetch URL/.well-known/openid-configuration, use its jwks_uri,
                               and require the token's iss to equal URL
        Decryption:
          --decrypt-key PATH   private JWK (oct too), JWK Set or PEM private key (repeatable);
                               a failed or refused decryption (RSA1_5, PBES2, zip) exits 1
        Checks:
          --alg ALG            allowed algorithm (repeatable); default: what the key admits.
                               JWS: HS256/384/512, RS256/384/512, PS256/384/512, ES256/384/512,
                               EdDSA, Ed25519 (RFC 9864: EdDSA on Ed25519, fully specified),
                               ML-DSA-44/65/87 (RFC 9964, kty AKP keys; needs OpenSSL 3.5 or
                               later, else algorithm_unavailable)
          --iss ISS            required issuer
          --aud AUD            required audience
          --nonce NONCE        required nonce (id-token; dpop-proof: the nonce the server gave)
          --require CLAIM      required claim (repeatable)
          --as KIND            judge it with the library's validator for KIND: id-token (--iss, --aud,
                               --nonce), access-token (--iss, --aud, --require-scope), logout-token
                               (--iss, --aud), dpop-proof (--htm, --htu, --ath, --nonce; no key: the
                               proof's jwk), sd-jwt (--key, --iss, --aud with --nonce: key binding;
                               see jwt-inspect sd-jwt --help), sd-jwt-vc (the same, with typ dc+sd-jwt,
                               vct, iss/vct/cnf/status never disclosed; --issuer URL: keys from URL's JWT VC
                               issuer metadata, iss must equal URL); without --as the kind is guessed from typ
          --check-status       sd-jwt-vc: fetch the credential's Token Status List (status.status_list) and
                               require its entry to be valid (credential_revoked, credential_suspended: exit 1)
          --allow-host HOST:PORT  sd-jwt-vc: also fetch from this host (an internal or non-443 one), e.g. a
                               status list on 127.0.0.1:8443 (repeatable; the --issuer host is always admitted)
          --require-scope SCOPE  access-token: required scope (repeatable)
          --htm METHOD         dpop-proof, --dpop-proof: the request method (required with them)
          --htu URL            dpop-proof, --dpop-proof: the request URL (required; query and fragment ignored)
          --ath HASH           dpop-proof: required ath, base64url SHA-256 of the access token
          --dpop-proof PROOF   access-token: the DPoP proof sent with the token (with --htm, --htu,
                               --nonce); a token bound to a key (cnf.jkt) is invalid without one
          --leeway SECONDS     clock skew allowed for exp/nbf/iat (default 60)
          --now UNIX_SECONDS   check times as of this moment (default: now)
        Output:
          --json               one JSON object instead of the human view
          --color auto|always|never   (default auto: only on a terminal, never with NO_COLOR)
          --help, --version
          --help-man           the manual page (roff: jwt-inspect --help-man | man -l -)

        Exit status: 0 decoded and every requested check passed (without a key: decoded),
        1 malformed token or a failed check, 2 usage or setup error.
        """

    /// Parses arguments; throws a usage message.
    static func parse(_ arguments: [String]) throws(UsageError) -> Options {
        var options = Options()
        var index = 0
        func value(_ flag: String) throws(UsageError) -> String {
            index += 1
            guard index < arguments.count else { throw UsageError("\(flag) needs a value") }
            return arguments[index]
        }
        func number(_ flag: String) throws(UsageError) -> Double {
            let text = try value(flag)
            guard let number = Double(text), number.isFinite else { throw UsageError("\(flag) needs a number, not \"\(text)\"") }
            return number
        }
        var positional: [String] = []
        while index < arguments.count {
            let argument = arguments[index]
            switch argument {
            case "--key": options.keyPath = try value(argument)
            case "--decrypt-key": options.decryptKeyPaths.append(try value(argument))
            case "--secret-file": options.secretFile = try value(argument)
            case "--jwks-url": options.jwksURL = try value(argument)
            case "--issuer": options.issuerURL = try value(argument)
            case "--alg": options.algorithms.append(try value(argument))
            case "--iss": options.expectedIssuer = try value(argument)
            case "--aud": options.expectedAudience = try value(argument)
            case "--nonce": options.expectedNonce = try value(argument)
            case "--require": options.requiredClaims.append(try value(argument))
            case "--require-scope": options.requiredScopes.append(try value(argument))
            case "--htm": options.dpopMethod = try value(argument)
            case "--htu": options.dpopURI = try value(argument)
            case "--ath": options.dpopAccessTokenHash = try value(argument)
            case "--dpop-proof": options.dpopProof = try value(argument)
            case "--check-status": options.checkStatus = true
            case "--allow-host": options.allowedHosts.append(try value(argument))
            case "--as":
                let text = try value(argument)
                if text == "sd-jwt" || text == "sd-jwt-vc" {
                    options.sdJWT = true
                    options.sdJWTVC = text == "sd-jwt-vc"
                    index += 1
                    continue
                }
                guard let kind = TokenKind(rawValue: text) else {
                    throw UsageError("--as takes \(TokenKind.allCases.map(\.rawValue).joined(separator: ", ")), sd-jwt, sd-jwt-vc, not \"\(text)\"")
                }
                options.kind = kind
            case "--leeway":
                options.leeway = try number(argument)
                guard options.leeway >= 0, options.leeway <= Leeway.maximum else {
                    throw UsageError("--leeway must be between 0 and \(Leeway.maximum.wholeText) seconds")
                }
            case "--now": options.now = try number(argument)
            case "--json": options.json = true
            case "--color":
                let text = try value(argument)
                guard let mode = ColorMode(rawValue: text) else { throw UsageError("--color takes auto, always or never") }
                options.color = mode
            case "--help", "-h": options.showHelp = true
            case "--version": options.showVersion = true
            case "--help-man": options.showManPage = true
            case "-": positional.append(argument)
            default:
                if argument.hasPrefix("--") { throw UsageError("unknown option \(argument)") }
                positional.append(argument)
            }
            index += 1
        }
        guard positional.count <= 1 else { throw UsageError("expected at most one TOKEN argument") }
        if let token = positional.first, token != "-" { options.token = token }
        // Counted without an array of optionals, whose generic metadata the runtime would build at launch.
        let sources =
            (options.keyPath == nil ? 0 : 1) + (options.secretFile == nil ? 0 : 1)
            + (options.jwksURL == nil ? 0 : 1) + (options.issuerURL == nil ? 0 : 1)
        guard sources <= 1 else {
            throw UsageError("use only one of --key, --secret-file, --jwks-url, --issuer")
        }
        return options
    }

    var hasKeySource: Bool { keyPath != nil || secretFile != nil || jwksURL != nil || issuerURL != nil }
}

/// A usage error: exit status 2.
struct UsageError: Error {
    let message: String
    init(_ message: String) { self.message = message }
}
