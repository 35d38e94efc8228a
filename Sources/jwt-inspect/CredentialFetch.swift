import JOSE
import OIDC

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The fetches of `--as sd-jwt-vc`: the issuer's keys through its JWT VC issuer metadata (`--issuer`) and the
/// credential's Token Status List (`--check-status`), both through the library's own code over ``SocketTransport``:
/// OIDCCore's `JWTVCIssuerMetadata` (well-known URL, document rules, issuer equality, `jwks`/`jwks_uri`) and
/// `StatusListCache` (the fetch policy, `Accept`, size and time bounds, then JOSE's `StatusListToken.verify`).
/// The tool adds only the fetch policy's allowed hosts: the `--issuer` host, which the user named, and `--allow-host`.
enum CredentialFetch {
    /// A refusal with its stable code: a JOSE or OIDC error, as the output names it.
    struct Refusal: Error {
        let code: String
        let reason: String

        init(code: String, reason: String) {
            self.code = code
            self.reason = reason
        }

        init(_ error: any Error) {
            if let error = error as? JOSEError {
                self.init(code: error.code.rawValue, reason: error.reason)
            } else if let error = error as? OIDCError {
                self.init(code: error.code.rawValue, reason: error.reason)
            } else {
                self.init(code: "status_list_transport_failed", reason: "\(error)")
            }
        }
    }

    /// The public-hosts-only policy, widened by name with the `--issuer` URL's host and port and each `--allow-host`.
    static func policy(_ options: Options) throws(UsageError) -> RemoteFetchPolicy {
        var hosts = Set<RemoteFetchPolicy.HostPort>()
        for text in options.allowedHosts {
            do { hosts.insert(try RemoteFetchPolicy.HostPort(text)) } catch {
                throw UsageError("--allow-host takes HOST:PORT (e.g. 127.0.0.1:8443, [::1]:8443), not \"\(TerminalText.escape(text))\"")
            }
        }
        if let issuer = options.issuerURL, let url = URL(string: issuer), let host = url.host(percentEncoded: false),
            let port = url.port ?? (url.scheme?.lowercased() == "https" ? 443 : url.scheme?.lowercased() == "http" ? 80 : nil),
            let named = try? RemoteFetchPolicy.HostPort(host: host, port: port)
        {
            hosts.insert(named)
        }
        return RemoteFetchPolicy(allowedHosts: hosts)
    }

    /// The verification keys of the credential issuer `issuer`, from its JWT VC issuer metadata.
    static func issuerKeys(_ issuer: String, policy: RemoteFetchPolicy) throws(SetupError) -> JWKSet {
        _ = try FetchURL.check(issuer, what: "--issuer")
        return try Network.blocking {
            try await JWTVCIssuerMetadata.keys(forIssuer: issuer, transport: SocketTransport(), fetchPolicy: policy)
        }
    }

    /// The status of a verified credential: `nil` when it names no status list; else its entry, required valid.
    /// - Throws: ``Refusal``: the status list codes (`status_list_*`), `credential_revoked`, `credential_suspended`,
    ///   `credential_status_not_valid`, `invalid_status_list`.
    static func checkStatus(
        of verified: VerifiedSDJWT, keys: JWKSet, policy: RemoteFetchPolicy, now: Double, leeway: Double
    ) throws(Refusal) -> (StatusListReference, StatusList.Status)? {
        let reference: StatusListReference?
        do { reference = try StatusListReference(claims: verified.claims.object) } catch { throw Refusal(error) }
        guard let reference else { return nil }
        var configuration = StatusListCache.Configuration()
        configuration.fetchPolicy = policy
        configuration.clock = { Date(timeIntervalSince1970: now) }
        configuration.leeway = leeway
        configuration.requestTimeout = SocketTransport().deadlineSeconds
        let cache = StatusListCache(transport: SocketTransport(), configuration: configuration)
        let answer: Result<StatusList.Status, Refusal>
        do {
            answer = try Network.blocking {
                do { return .success(try await cache.status(of: reference, keys: keys)) } catch { return .failure(Refusal(error)) }
            }
        } catch {
            throw Refusal(code: "status_list_transport_failed", reason: error.message)
        }
        switch answer {
        case .success(let status):
            do { try status.requireValid() } catch { throw Refusal(error) }
            return (reference, status)
        case .failure(let refusal): throw refusal
        }
    }
}
