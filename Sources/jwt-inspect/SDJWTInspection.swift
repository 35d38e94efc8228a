import JOSE
import OIDC
import OIDCTLSTransport

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// `jwt-inspect --as sd-jwt`: the SD-JWT (or SD-JWT+KB) verified by JOSE's `SDJWT.verify` (RFC 9901 §7), each
/// disclosure listed with its name, value and digest, and the processed claims shown. The tool adds only the wording.
/// Exit 0 valid, 1 invalid (a typed reason), 2 usage.
enum SDJWTInspection {
    static func run(_ token: String, options: Options) throws(Exit) {
        let kind = options.sdJWTVC ? "sd-jwt-vc" : "sd-jwt"
        guard options.hasKeySource else { throw fail(2, "--as \(kind) needs the issuer's key (--key)\nTry 'jwt-inspect --help'.") }
        guard options.sdJWTVC || (!options.checkStatus && options.allowedHosts.isEmpty) else {
            throw fail(2, "--check-status and --allow-host apply to --as sd-jwt-vc\nTry 'jwt-inspect --help'.")
        }
        guard (options.expectedAudience == nil) == (options.expectedNonce == nil) else {
            throw fail(2, "--as sd-jwt: key binding needs both --aud and --nonce\nTry 'jwt-inspect --help'.")
        }
        // --issuer for an SD-JWT VC: the JWT VC issuer metadata (not OpenID discovery), and iss must be that issuer.
        let metadataIssuer = options.sdJWTVC ? options.issuerURL : nil
        if let metadataIssuer, let expected = options.expectedIssuer, expected != metadataIssuer {
            throw fail(2, "--iss and --issuer name different issuers\nTry 'jwt-inspect --help'.")
        }
        let fetchPolicy: RemoteFetchPolicy
        do { fetchPolicy = try CredentialFetch.policy(options) } catch { throw fail(2, "\(error.message)\nTry 'jwt-inspect --help'.") }
        let set: JWKSet
        if let metadataIssuer {
            do { set = try CredentialFetch.issuerKeys(metadataIssuer, policy: fetchPolicy) } catch { throw fail(2, error.message) }
        } else {
            let keys: KeySource?
            do { keys = try KeySource.load(options) } catch { throw fail(2, error.message) }
            switch keys {
            case .single(let key): set = JWKSet(keys: [key])
            case .set(let keys): set = keys
            case nil: throw fail(2, "--as sd-jwt needs the issuer's key (--key)")
            }
        }
        var policy: SDJWTVerificationPolicy
        do { policy = try Self.policy(options) } catch { throw fail(2, "\(error.message)\nTry 'jwt-inspect --help'.") }
        if let metadataIssuer { policy.claims.issuer = metadataIssuer }

        var parsed: SDJWT?
        var status: (StatusListReference, StatusList.Status)?
        let outcome: Result<VerifiedSDJWT, CredentialFetch.Refusal>
        do {
            let sdjwt = try SDJWT(token)
            parsed = sdjwt
            let verified = options.sdJWTVC ? try SDJWTVC.verify(sdjwt, keys: set, policy: policy) : try sdjwt.verify(keys: set, policy: policy)
            if options.checkStatus {
                status = try CredentialFetch.checkStatus(
                    of: verified, keys: set, policy: fetchPolicy, now: options.now ?? IO.currentTime(), leeway: options.leeway)
            }
            outcome = .success(verified)
        } catch let error as CredentialFetch.Refusal {
            outcome = .failure(error)
        } catch {
            outcome = .failure(
                error is JOSEError ? CredentialFetch.Refusal(error) : CredentialFetch.Refusal(code: "malformed_token", reason: "unreadable SD-JWT"))
        }
        let checks = Checks(metadataIssuer: metadataIssuer, statusChecked: options.checkStatus, status: status)
        IO.write(options.json ? json(outcome, checks: checks) : human(outcome, parsed: parsed, policy: policy, checks: checks, options: options), to: 1)
        if case .failure(let error) = outcome { throw fail(1, "sd-jwt check failed: \(error.reason) [\(error.code)]") }
    }

    /// What was checked besides the SD-JWT itself, for the output.
    struct Checks {
        /// The issuer whose JWT VC issuer metadata gave the keys (`--issuer`).
        let metadataIssuer: String?
        /// Whether `--check-status` was given.
        let statusChecked: Bool
        /// The status list entry read, when the credential names one and it was checked.
        let status: (StatusListReference, StatusList.Status)?
    }

    static func policy(_ options: Options) throws(UsageError) -> SDJWTVerificationPolicy {
        let now = options.now ?? IO.currentTime()
        var signature = JWSVerificationPolicy.default
        if !options.algorithms.isEmpty {
            var allowed = Set<JWSAlgorithm>()
            for name in options.algorithms {
                guard let algorithm = JWSAlgorithm(rawValue: name) else { throw UsageError("--alg \(name) is not a supported JWS algorithm") }
                allowed.insert(algorithm)
            }
            signature.allowedAlgorithms = allowed
        }
        let claims = JWTValidationPolicy(
            clock: { Date(timeIntervalSince1970: now) }, leeway: options.leeway, issuer: options.expectedIssuer, requiredClaims: options.requiredClaims)
        var keyBinding: SDJWTKeyBinding?
        if let audience = options.expectedAudience, let nonce = options.expectedNonce {
            keyBinding = SDJWTKeyBinding(audience: audience, nonce: nonce)
        }
        return SDJWTVerificationPolicy(signature: signature, claims: claims, keyBinding: keyBinding)
    }

    /// `{"result", "reason", "claims", "disclosures"}`.
    static func json(_ outcome: Result<VerifiedSDJWT, CredentialFetch.Refusal>, checks: Checks) -> String {
        var object = JSONObject()
        switch outcome {
        case .success(let verified):
            object["result"] = "valid"
            object["reason"] = .null
            object["claims"] = .object(verified.claims.object)
            object["disclosures"] = .array(
                verified.disclosures.map { placed in
                    var item = JSONObject()
                    item["name"] = placed.disclosure.name.map(JSONValue.string) ?? .null
                    item["value"] = placed.disclosure.value
                    item["digest"] = .string(placed.digest)
                    item["pointer"] = .string(placed.pointer)
                    return .object(item)
                })
            object["key_binding"] = .bool(verified.keyBinding != nil)
            if checks.statusChecked { object["status"] = checks.status.map { .string($0.1.description) } ?? .null }
        case .failure(let error):
            object["result"] = "invalid"
            object["reason"] = .string(error.code)
            object["message"] = .string(error.reason)
        }
        return JSONValue.object(object).prettyJSONString(sortedKeys: false) + "\n"
    }

    static func human(
        _ outcome: Result<VerifiedSDJWT, CredentialFetch.Refusal>, parsed: SDJWT?, policy: SDJWTVerificationPolicy, checks: Checks, options: Options
    ) -> String {
        func safe(_ text: String) -> String { TerminalText.escape(text, keepingNewlines: true) }
        let color: Bool
        switch options.color {
        case .always: color = true
        case .never: color = false
        case .auto: color = IO.isTerminal(1) && IO.environment("NO_COLOR") == nil
        }
        func paint(_ text: String, _ code: String) -> String { color ? "\u{1B}[\(code)m\(text)\u{1B}[0m" : text }
        var out = ""
        if let parsed {
            out +=
                paint("SD-JWT", "1") + ": issuer-signed JWT, \(parsed.disclosures.count) disclosure(s)"
                + (parsed.keyBindingJWT == nil ? ", no KB-JWT" : ", KB-JWT") + "\n\n"
        }
        out += paint("Disclosures", "1") + "\n"
        switch outcome {
        case .success(let verified):
            if verified.disclosures.isEmpty { out += "  (none)\n" }
            for placed in verified.disclosures {
                let name = placed.disclosure.name ?? "[array element]"
                out += "  " + safe(name) + " = " + safe(placed.disclosure.value.jsonString()) + "\n"
                out += "      digest " + placed.digest + "  at " + safe(placed.pointer) + "\n"
            }
        case .failure:
            // Not verified: each disclosure decoded on its own, digests with the unverified _sd_alg.
            for text in parsed?.disclosures ?? [] {
                guard let disclosure = try? SDJWTDisclosure(encoded: text) else {
                    out += "  (malformed disclosure)\n"
                    continue
                }
                out += "  " + safe(disclosure.name ?? "[array element]") + " = " + safe(disclosure.value.jsonString()) + "\n"
                out += "      digest " + disclosure.digest(.sha256) + " (sha-256, not verified)\n"
            }
        }
        out += "\n" + paint("Checks", "1") + "\n"
        let pass = paint("✔", "32")
        switch outcome {
        case .success(let verified):
            out += "  \(pass) signature  verified with the \(verified.issuerKey) (" + safe(verified.header.algorithmName ?? "?") + ")\n"
            if let issuer = checks.metadataIssuer {
                out += "  \(pass) issuer     keys from the JWT VC issuer metadata of " + safe(issuer) + ", iss equal to it\n"
            }
            out += "  \(pass) digests    each disclosure found exactly once (\(verified.hashAlgorithm.rawValue)), none repeated or in conflict\n"
            out +=
                "  \(pass) claims     times" + (policy.claims.issuer == nil ? "" : ", iss")
                + (policy.claims.requiredClaims.isEmpty ? "" : ", required claims") + " on the processed claims\n"
            if verified.keyBinding != nil {
                out += "  \(pass) binding    KB-JWT typ kb+jwt signed by cnf.jwk, aud, nonce, iat within 300 s, sd_hash\n"
            } else {
                out += "  " + paint("!", "33") + " binding    not required (no --aud/--nonce)\n"
            }
            if checks.statusChecked {
                if let (reference, status) = checks.status {
                    out += "  \(pass) status     entry \(reference.index) of " + safe(reference.uri) + ": \(status)\n"
                } else {
                    out += "  " + paint("!", "33") + " status     the credential names no status list\n"
                }
            }
            out += "\n" + paint("Claims", "1") + "\n" + safe(JSONValue.object(verified.claims.object).prettyJSONString(sortedKeys: true)) + "\n\n"
            out +=
                paint(paint("VALID", "1"), "32") + ": signature, disclosures" + (verified.keyBinding == nil ? "" : ", key binding")
                + (checks.status == nil ? "" : ", status") + " and claims\n"
        case .failure(let error):
            out += "  " + paint("✘", "31") + " sd-jwt     " + safe(error.reason) + paint("  [\(error.code)]", "2") + "\n\n"
            out += paint(paint("INVALID", "1"), "31") + ": " + safe(error.reason) + " [\(error.code)]\n"
        }
        return out
    }
}
