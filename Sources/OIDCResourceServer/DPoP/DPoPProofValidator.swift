#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import JOSE
import OIDC

/// Checks DPoP proofs (RFC 9449 §4.3) for a resource or authorization server.
///
/// In order: one compact JWS (`dpopProofMalformed`); `typ` exactly `dpop+jwt`; `alg` an allowed
/// asymmetric algorithm (never `none` or HMAC); a `jwk` header holding a public key only; the signature
/// verified with that key through JOSE; `jti` present; `htm` equal to the request method; `htu` equal to
/// the request URI without query and fragment, after scheme/host case and default-port normalisation
/// (RFC 3986 §6.2.2.1, §6.2.3); `iat` present, not more than ``leeway`` in the future and not older than
/// ``maximumAge`` + ``leeway`` (JOSE's time rules); `nonce` when the server requires one; `ath` and the key's
/// thumbprint against `cnf.jkt` when an access token is presented; last, `jti` not seen within the window
/// of ``replays`` (when given; recorded only once every other check passed). Each failure is an
/// ``OIDC/OIDCError`` whose code names the rule (`dpop_proof_htm`, `dpop_proof_ath`, ...).
public struct DPoPProofValidator: Sendable {
    /// The request the proof must be for.
    public enum Target: Sendable, Hashable {
        /// The HTTP method and the request URI (query and fragment are ignored).
        case request(method: String, uri: URL)
        /// `htm`/`htu` are read but not compared: an explicit opt-out for tools that show a proof
        /// without knowing its request. A server never uses this.
        case notChecked
    }

    /// The `nonce` rule.
    public enum NonceRule: Sendable, Hashable {
        /// The server gave no nonce; a `nonce` claim, if any, is ignored.
        case notRequired
        /// The proof must carry exactly this nonce.
        case required(String)
    }

    /// The access token presented with the proof, if any.
    public enum Presentation: Sendable, Hashable {
        /// No access token (e.g. a token request): `ath` is not checked.
        case noAccessToken
        /// An access token: `ath` must be its hash; `boundThumbprint` (the token's `cnf.jkt`, when known)
        /// must equal the proof key's RFC 7638 thumbprint.
        case accessToken(String, boundThumbprint: String?)
        /// As ``accessToken(_:boundThumbprint:)`` with the token's `ath` value (Base64URL SHA-256)
        /// already computed by the caller, e.g. a tool that is given the hash rather than the token.
        case accessTokenHash(String, boundThumbprint: String?)
    }

    /// Allowed algorithms (always a subset of the asymmetric ones).
    public let allowedAlgorithms: Set<JWSAlgorithm>
    /// How old `iat` may be, in seconds (default 300).
    public let maximumAge: TimeInterval
    /// Allowed clock skew, as JOSE's time rules take it (NaN or negative: 0; at most a day).
    public let leeway: TimeInterval
    /// Seen `jti` values (keyed by the proof key's thumbprint), or `nil` for no replay check.
    /// Its window should be at least ``maximumAge`` + ``leeway``.
    public let replays: LogoutReplayCache?
    /// The current time.
    public let clock: @Sendable () -> Date

    /// Receives one ``OIDC/OIDCEvent`` per proof validated (``OIDC/OIDCEvent/Kind/dpopProofValidation``: accepted, or refused with the error's code);
    /// `nil` (default): none, and no work beyond a `nil` check.
    public var observer: (any OIDCObserver)? = nil

    /// Creates a validator.
    public init(allowedAlgorithms: Set<JWSAlgorithm> = IssuerKeys.asymmetricAlgorithms, maximumAge: TimeInterval = 300,
                leeway: TimeInterval = 60, replays: LogoutReplayCache? = nil, clock: @escaping @Sendable () -> Date = { Date() }) {
        self.allowedAlgorithms = allowedAlgorithms.intersection(IssuerKeys.asymmetricAlgorithms)
        self.maximumAge = maximumAge.isNaN ? 0 : max(0, maximumAge)
        self.leeway = Leeway.effective(leeway)
        self.replays = replays
        self.clock = clock
    }

    /// The private members of every key type (RFC 7518 §6.2.2, §6.3.2, §6.4; RFC 8037 §2).
    static let privateMembers = ["d", "p", "q", "dp", "dq", "qi", "oth", "k"]

    /// Validates `proof` for `target`.
    /// - Throws: ``OIDC/OIDCError`` with one of the `dpop_proof_*` codes, naming the failed rule.
    func validateProof(_ proof: String, for target: Target, nonce: NonceRule, presenting: Presentation) async throws -> VerifiedDPoPProof {
        let jws: CompactJWS
        do { jws = try CompactJWS(proof) } catch let error as JOSEError {
            throw OIDCError(.dpopProofMalformed, "the DPoP proof is not a compact JWS", joseError: error)
        }
        guard jws.header.type == "dpop+jwt" else { throw OIDCError(.dpopProofType, "the DPoP proof's typ is not dpop+jwt") }
        guard let name = jws.header.algorithmName, let algorithm = JWSAlgorithm(rawValue: name), allowedAlgorithms.contains(algorithm) else {
            throw OIDCError(.dpopProofAlgorithm, "the DPoP proof's alg is not an allowed asymmetric algorithm")
        }
        guard let members = jws.header.members["jwk"]?.objectValue else {
            throw OIDCError(.dpopProofKey, "the DPoP proof has no jwk header")
        }
        if let member = Self.privateMembers.first(where: { members[$0] != nil }) {
            throw OIDCError(.dpopProofPrivateKey, "the DPoP proof's jwk carries the private member \"\(member)\"")
        }
        let key: JWK
        do { key = try JWK(jsonObject: members) } catch let error as JOSEError {
            throw OIDCError(.dpopProofKey, "the DPoP proof's jwk is not a usable key", joseError: error)
        }
        guard !key.isPrivate, key.keyType != .oct else { throw OIDCError(.dpopProofKey, "the DPoP proof's jwk is not an asymmetric public key") }
        do { try jws.verify(with: key, policy: JWSVerificationPolicy(allowedAlgorithms: allowedAlgorithms)) } catch let error as JOSEError {
            throw OIDCError(.dpopProofSignature, "the DPoP proof's signature does not verify with its jwk", joseError: error)
        }
        let claims: JWTClaims
        do { claims = try JWTClaims(payload: jws.payload) } catch let error as JOSEError {
            throw OIDCError(.dpopProofMalformed, "the DPoP proof's claims are not a JSON object", joseError: error)
        }
        func text(_ name: String, _ code: OIDCError.Code) throws -> String? {
            do { return try claims.string(name) } catch let error as JOSEError {
                throw OIDCError(code, "the DPoP proof's \"\(name)\" is not a string", joseError: error)
            }
        }
        guard let jti = try text("jti", .dpopProofJTI), !jti.isEmpty else { throw OIDCError(.dpopProofJTI, "the DPoP proof has no \"jti\"") }
        guard let htm = try text("htm", .dpopProofMethod) else { throw OIDCError(.dpopProofMethod, "the DPoP proof has no \"htm\"") }
        guard let htu = try text("htu", .dpopProofURI) else { throw OIDCError(.dpopProofURI, "the DPoP proof has no \"htu\"") }
        if case .request(let method, let uri) = target {
            guard htm == method else { throw OIDCError(.dpopProofMethod, "the DPoP proof's htm is not the request method \(method)") }
            guard let expected = Self.normalizedURI(uri), let given = URL(string: htu).flatMap(Self.normalizedURI), given == expected else {
                throw OIDCError(.dpopProofURI, "the DPoP proof's htu is not the request URI \(Self.normalizedURI(uri) ?? "(unusable)")")
            }
        }
        let now = clock()
        let issuedAt: Date
        do {
            try claims.validateTimes(now: now, leeway: leeway, requiresExpiration: false, requiresIssuedAt: true)
            guard let date = try claims.issuedAt else { throw OIDCError(.dpopProofIssuedAt, "the DPoP proof has no \"iat\"") }
            issuedAt = date
        } catch let error as JOSEError {
            throw OIDCError(.dpopProofIssuedAt, "the DPoP proof's time claims fail: \(error.reason)", joseError: error)
        }
        guard now.timeIntervalSince(issuedAt) <= maximumAge + leeway else {
            throw OIDCError(.dpopProofIssuedAt, "the DPoP proof was issued more than \(maximumAge.wholeText) s ago")
        }
        if case .required(let expected) = nonce {
            guard let given = try text("nonce", .dpopProofNonce), given == expected else {
                throw OIDCError(.dpopProofNonce, "the DPoP proof does not carry the nonce the server gave")
            }
        }
        let thumbprint = key.thumbprint()
        let presented: (hash: String, bound: String?)?
        switch presenting {
        case .noAccessToken: presented = nil
        case .accessToken(let token, let bound): presented = (DPoPKey.accessTokenHash(token), bound)
        case .accessTokenHash(let hash, let bound): presented = (hash, bound)
        }
        if let (hash, bound) = presented {
            guard let ath = try text("ath", .dpopProofAccessTokenHash), ath == hash else {
                throw OIDCError(.dpopProofAccessTokenHash, "the DPoP proof's ath is not the hash of the presented access token")
            }
            if let bound, bound != thumbprint {
                throw OIDCError(.dpopProofKeyBinding, "the DPoP proof's key is not the one the access token is bound to (cnf.jkt)")
            }
        }
        if let replays, !(await replays.record(issuer: thumbprint, jwtID: jti)) {
            throw OIDCError(.dpopProofReplayed, "a DPoP proof with this jti was already received within \(replays.window.wholeText) s")
        }
        return VerifiedDPoPProof(key: key, thumbprint: thumbprint, algorithm: algorithm, jwtID: jti, method: htm, uri: htu,
                                 issuedAt: issuedAt, claims: claims)
    }

    /// `uri` without query, fragment and user info, scheme and host lower-cased, the default port
    /// (80 for http, 443 for https) dropped and an empty path as `/` (RFC 3986 §6.2.2.1, §6.2.3);
    /// `nil` unless absolute http(s) with a host.
    public static func normalizedURI(_ uri: URL) -> String? {
        guard var components = URLComponents(url: uri, resolvingAgainstBaseURL: false),
              let scheme = components.scheme?.lowercased(), scheme == "https" || scheme == "http",
              let host = components.host, !host.isEmpty else { return nil }
        components.scheme = scheme
        components.host = host.lowercased()
        if components.port == (scheme == "https" ? 443 : 80) { components.port = nil }
        components.query = nil
        components.fragment = nil
        components.user = nil
        components.password = nil
        if components.path.isEmpty { components.path = "/" }
        return components.string
    }
}
