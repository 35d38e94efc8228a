import JOSE
import OIDC
import OIDCResourceServer

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// `--as KIND`: the token judged by the library's validator for that kind of token
/// (OIDC's `IDTokenValidator`, OIDCResourceServer's `AccessTokenValidator`,
/// `LogoutTokenValidator` and `DPoPProofValidator`). The tool adds only the wording; without `--as` it guesses
/// the kind from `typ` and says so.
enum TokenKind: String, CaseIterable {
    case idToken = "id-token"
    case accessToken = "access-token"
    case logoutToken = "logout-token"
    case dpopProof = "dpop-proof"

    /// The kind a `typ` header names, if any.
    static func guess(type: String?) -> TokenKind? {
        if JOSEHeader.mediaType(type, is: "at+jwt") { return .accessToken }
        if JOSEHeader.mediaType(type, is: "logout+jwt") { return .logoutToken }
        if JOSEHeader.mediaType(type, is: "dpop+jwt") { return .dpopProof }
        return nil
    }

    /// The rules the library's validator applied, for the reader.
    func rules(options: Options) -> String {
        let scopes = options.requiredScopes
        switch self {
        case .idToken: return "OpenID Connect Core 3.1.3.7: signature, alg, iss, aud/azp, exp, iat, nonce"
        case .accessToken:
            return "RFC 9068: signature (asymmetric), exp/nbf/iat, typ at+jwt, iss, aud, sub, client_id, iat, jti"
                + (options.dpopProof == nil
                    ? "" : ", RFC 9449 DPoP proof (htm, htu, iat, ath, key = cnf.jkt" + (options.expectedNonce == nil ? ")" : ", nonce)"))
                + (scopes.isEmpty ? "" : ", scope " + scopes.joined(separator: " "))
        case .logoutToken: return "Back-Channel Logout 2.6: signature, typ, iss, aud, iat, jti, events, sub/sid, no nonce, not replayed"
        case .dpopProof:
            return "RFC 9449 §4.3: typ dpop+jwt, alg asymmetric, jwk public only, signature, jti, "
                + (options.dpopMethod == nil ? "htm/htu not checked (no --htm/--htu)" : "htm, htu") + ", iat"
                + (options.expectedNonce == nil ? "" : ", nonce") + (options.dpopAccessTokenHash == nil ? "" : ", ath")
        }
    }

    /// Runs the validator; a pass or a fail line named after the kind.
    /// `guessed`: the kind came from `typ`, not `--as` (a DPoP proof without `--htm`/`--htu` is then
    /// judged without its request, and says so).
    func judge(_ token: String, options: Options, keys: KeySource?, now: Double, guessed: Bool = false) throws(UsageError) -> Check {
        let clock: @Sendable () -> Date = { Date(timeIntervalSince1970: now) }
        let body: @Sendable () async throws -> Void
        if self == .dpopProof {
            body = try Self.dpopBody(token, options: options, clock: clock, guessed: guessed)
        } else {
            body = try judgeBody(token, options: options, keys: keys, clock: clock)
        }
        let failure: (code: String, message: String)?
        do {
            failure = try Network.blocking { () async -> (code: String, message: String)? in
                do {
                    try await body()
                    return nil
                } catch let error as OIDCError {
                    return (error.code.rawValue, error.reason)
                } catch {
                    return ("invalid_token", Network.describe(error))
                }
            }
        } catch {
            failure = ("invalid_token", error.message)
        }
        guard let failure else {
            return Check(name: rawValue, status: .pass, reason: nil, message: rules(options: options) + ": passed")
        }
        return Check(name: rawValue, status: .fail, reason: failure.code, message: failure.message)
    }

    /// `--htm` and `--htu` as a request method and URL; `nil` when both are absent.
    static func dpopRequest(_ options: Options, for flag: String) throws(UsageError) -> (method: String, url: URL)? {
        switch (options.dpopMethod, options.dpopURI) {
        case (let method?, let uri?):
            guard let url = URL(string: uri), DPoPProofValidator.normalizedURI(url) != nil else {
                throw UsageError("--htu needs an absolute http(s) URL, not \"\(uri)\"")
            }
            return (method, url)
        case (nil, nil): return nil
        default: throw UsageError("\(flag) needs --htm (the request method) and --htu (the request URL)")
        }
    }

    /// `--as dpop-proof`: `DPoPProofValidator` with `--htm`/`--htu` (both required unless guessed), `--nonce`, `--ath`.
    static func dpopBody(_ token: String, options: Options, clock: @escaping @Sendable () -> Date, guessed: Bool) throws(UsageError)
        -> @Sendable () async throws -> Void
    {
        let target: DPoPProofValidator.Target
        switch try dpopRequest(options, for: "--as dpop-proof") {
        case let (method, url)?:
            target = .request(method: method, uri: url)
        case nil where guessed: target = .notChecked
        case nil: throw UsageError("--as dpop-proof needs --htm (the request method) and --htu (the request URL)")
        }
        let nonce: DPoPProofValidator.NonceRule = options.expectedNonce.map { .required($0) } ?? .notRequired
        // Given only the hash, not the token: the token's cnf.jkt is unknown here (--as access-token --dpop-proof checks it).
        let presenting: DPoPProofValidator.Presentation =
            options.dpopAccessTokenHash.map { .accessTokenHash($0, boundTo: .notCheckedAtCallersRisk) } ?? .noAccessToken
        let validator = DPoPProofValidator(leeway: options.leeway, clock: clock)
        return { _ = try await validator.validate(token, for: target, nonce: nonce, presenting: presenting) }
    }

    /// The validator call for the kinds judged with the issuer's keys.
    func judgeBody(_ token: String, options: Options, keys: KeySource?, clock: @escaping @Sendable () -> Date) throws(UsageError)
        -> @Sendable () async throws -> Void
    {
        guard let keys else { throw UsageError("--as \(rawValue) needs a key (--key, --jwks-url or --issuer)") }
        let issuer = options.expectedIssuer ?? options.issuerURL
        let audience = options.expectedAudience
        let set: JWKSet
        switch keys {
        case .single(let key): set = JWKSet(keys: [key])
        case .set(let keys): set = keys
        }
        let leeway = options.leeway
        let scopes = Set(options.requiredScopes)
        let nonce = options.expectedNonce
        let body: @Sendable () async throws -> Void
        switch self {
        case .idToken:
            guard let issuer, let audience else { throw UsageError("--as id-token needs --iss (or --issuer) and --aud (the client id)") }
            // The tool's algorithm rule: --alg when given, else what the key(s) admit.
            let named = Set(options.algorithms.compactMap(JWSAlgorithm.init(rawValue:)))
            let algorithms = named.isEmpty ? set.keys.reduce(into: Set<JWSAlgorithm>()) { $0.formUnion($1.admittedAlgorithms) } : named
            let configuration = IDTokenValidator.Configuration(issuer: issuer, clientID: audience, allowedAlgorithms: algorithms, clock: clock, leeway: leeway)
            body = {
                _ = try await IDTokenValidator(configuration: configuration, keys: .keySet(set)).validate(
                    token, expecting: IDTokenExpectations(nonce: nonce.map { .sent($0) } ?? .noNonceSent))
            }  // no --nonce: stated as not sent
        case .accessToken:
            guard let issuer, let audience else { throw UsageError("--as access-token needs --iss (or --issuer) and --aud (this resource server)") }
            let validator = AccessTokenValidator(issuer: issuer, audience: audience, keys: .keySet(set), leeway: leeway, clock: clock)
            if let proof = options.dpopProof {
                // The library's one call, on the request the flags describe: cnf.jkt, ath and the proof's key checked there.
                guard let (method, url) = try Self.dpopRequest(options, for: "--dpop-proof") else {
                    throw UsageError("--dpop-proof needs --htm (the request method) and --htu (the request URL)")
                }
                let headers: HeaderFields = ["Authorization": "DPoP " + token, "DPoP": proof]
                let dpopNonce: DPoPProofValidator.NonceRule = nonce.map { .required($0) } ?? .notRequired
                body = { _ = try await validator.validate(method: method, url: url, headers: headers, requiredScopes: scopes, dpopNonce: dpopNonce) }
            } else {
                // The library's one call, the token presented as Bearer (the URL is read for DPoP proofs only).
                let headers: HeaderFields = ["Authorization": "Bearer " + token]
                body = { _ = try await validator.validate(method: "GET", url: URL(fileURLWithPath: "/"), headers: headers, requiredScopes: scopes) }
            }
        case .logoutToken:
            guard let issuer, let audience else { throw UsageError("--as logout-token needs --iss (or --issuer) and --aud (the client id)") }
            let validator = LogoutTokenValidator(issuer: issuer, clientID: audience, keys: .keySet(set), leeway: leeway, clock: clock)
            body = { _ = try await validator.validate(token) }
        case .dpopProof:
            return try Self.dpopBody(token, options: options, clock: clock, guessed: false)
        }
        return body
    }
}
