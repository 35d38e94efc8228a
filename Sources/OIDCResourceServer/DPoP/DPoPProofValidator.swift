import JOSE
import OIDCCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Checks DPoP proofs (RFC 9449 §4.3) for a resource or authorization server.
///
/// In order: one compact JWS (`dpopProofMalformed`); `typ` exactly `dpop+jwt`; `alg` an allowed asymmetric
/// algorithm (never `none` or HMAC); a `jwk` header holding a public key only, within JOSE's limits for
/// embedded keys (``/JOSE/JWK/init(embeddedJSONObject:)``: RSA `e` at most 2^32, `n` at most 8192 bits);
/// when an access token bound by `cnf.jkt` is presented, the key's thumbprint equal to it
/// (`dpop_proof_jkt`) before any signature work; the signature verified with that key through JOSE; `jti`
/// present; `htm` equal to the request method; `htu` equal to the request URI after
/// `normalizedURI(_:)` (RFC 3986 §6.2.2, §6.2.3; query and fragment ignored); `iat` present, not
/// more than `leeway` in the future and not older than `maximumAge` + `leeway` (JOSE's time rules);
/// `nonce` when the server requires one; `ath` when an access token is presented (the binding is always
/// stated, ``KeyBinding``); last, `jti` not seen before for this key (`replays`, on by default; recorded
/// only once every other check passed, until the proof can no longer pass the `iat` rule): a replay is
/// `dpop_proof_replayed`; a key whose share of the cache is full of live entries gets `replay_cache_full`
/// (and an ``/OIDCCore/OIDCEvent/Kind/replayCacheFull`` event), never a replay. Each failure is an
/// ``/OIDCCore/OIDCError`` whose code names the rule (`dpop_proof_htm`, `dpop_proof_ath`, ...).
///
/// A resource server uses ``ResourceGuard``, which reads `cnf` itself and calls this validator.
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

    /// Which key the presented access token is bound to: always stated, never implied by an absent argument.
    public enum KeyBinding: Sendable, Hashable {
        /// The token's `cnf.jkt` (RFC 9449 §6.1): the proof key's RFC 7638 thumbprint must equal it.
        case thumbprint(String)
        /// The binding is not checked: an explicit opt-out for tools that are given only a proof and an
        /// `ath`, without the token. A resource server never uses this: a proof signed by any key passes.
        case notCheckedAtCallersRisk
    }

    /// The access token presented with the proof, if any.
    public enum Presentation: Sendable, Hashable {
        /// No access token (e.g. a token request): `ath` is not checked.
        case noAccessToken
        /// An access token: `ath` must be its hash and the proof key must match `boundTo`.
        case accessToken(String, boundTo: KeyBinding)
        /// As ``accessToken(_:boundTo:)`` with the token's `ath` value (Base64URL SHA-256)
        /// already computed by the caller, e.g. a tool that is given the hash rather than the token.
        case accessTokenHash(String, boundTo: KeyBinding)

        /// The key binding of the presented token, if one is presented.
        var binding: KeyBinding? {
            switch self {
            case .noAccessToken: nil
            case .accessToken(_, let binding), .accessTokenHash(_, let binding): binding
            }
        }
    }

    /// Where seen `jti` values are remembered.
    public enum ReplayProtection: Sendable {
        /// Each `jti` is recorded in `cache`, scoped by the proof key's thumbprint, until the proof
        /// could no longer pass the `iat` rule; a second use is `dpop_proof_replayed`, and a key whose share
        /// of the cache is full gets `replay_cache_full` (the cache bounds each key's share).
        case cache(any ReplayCache)
        /// No replay check: a captured proof can be sent again within its `iat` window (RFC 9449 §11.1).
        /// An explicit opt-out for tools that judge one proof; a server never uses this.
        case disabledAtCallersRisk
    }

    /// Allowed algorithms (always a subset of the asymmetric ones).
    package let allowedAlgorithms: Set<JWSAlgorithm>
    /// How old `iat` may be, in seconds (default 300; NaN or negative: 0; at most a day).
    package let maximumAge: TimeInterval
    /// Allowed clock skew, as JOSE's time rules take it (NaN or negative: 0; at most a day).
    package let leeway: TimeInterval
    /// Where seen `jti` values are remembered (default: a ``InMemoryReplayCache`` of this validator).
    package let replays: ReplayProtection
    /// The current time.
    package let clock: @Sendable () -> Date
    private let policy: JWSVerificationPolicy
    private let keys = ProofKeyCache()

    /// Receives one ``OIDC/OIDCEvent`` per proof validated (``OIDC/OIDCEvent/Kind/dpopProofValidation``: accepted, or refused with the error's code);
    /// `nil` (default): none, and no work beyond a `nil` check.
    package let observer: (any OIDCObserver)?

    /// Creates a validator.
    /// - Parameters:
    ///   - allowedAlgorithms: a subset of the asymmetric algorithms; HMAC entries are dropped.
    ///   - maximumAge: how old a proof's `iat` may be, in seconds.
    ///   - leeway: allowed clock skew, in seconds.
    ///   - replays: where seen `jti` values are remembered; the default is a fresh ``/OIDCCore/InMemoryReplayCache``
    ///     (replicas behind one load balancer share one instead); opting out is ``ReplayProtection/disabledAtCallersRisk``.
    ///   - clock: the current time (also the clock the replay retention is computed on).
    ///   - observer: receives one event per proof validated; `nil` (default): none.
    public init(
        allowedAlgorithms: Set<JWSAlgorithm> = IssuerKeys.asymmetricAlgorithms, maximumAge: TimeInterval = 300,
        leeway: TimeInterval = 60, replays: ReplayProtection = .cache(InMemoryReplayCache()),
        clock: @escaping @Sendable () -> Date = { Date() }, observer: (any OIDCObserver)? = nil
    ) {
        self.observer = observer
        self.allowedAlgorithms = allowedAlgorithms.intersection(IssuerKeys.asymmetricAlgorithms)
        self.maximumAge = Leeway.effective(maximumAge)
        self.leeway = Leeway.effective(leeway)
        self.replays = replays
        self.clock = clock
        policy = JWSVerificationPolicy(allowedAlgorithms: self.allowedAlgorithms)
    }

    /// The space-separated `algs` of a `DPoP` challenge (RFC 9449 §7.1): the allowed algorithms, sorted.
    public var challengeAlgorithms: [String] { allowedAlgorithms.map(\.rawValue).sorted() }

    /// Until when a proof issued at `issuedAt` must be remembered: it passes the `iat` rule while
    /// `now - issuedAt <= maximumAge + leeway` (a future `iat` up to `leeway` included), so through
    /// `issuedAt + maximumAge + leeway`, and one second more for the cache's strict comparison.
    func replayRetention(issuedAt: Date) -> Date {
        issuedAt.addingTimeInterval(maximumAge + leeway + 1)
    }

    /// The private members of every key type (RFC 7518 §6.2.2, §6.3.2, §6.4; RFC 8037 §2).
    static let privateMembers = ["d", "p", "q", "dp", "dq", "qi", "oth", "k"]

    /// The proof's `jwk` as a public key and its RFC 7638 thumbprint (§4.3 step 7). A client signs
    /// every proof with one key, so its protected header (`typ`, `alg`, `jwk`) repeats byte for byte:
    /// the key read from a header that passed these checks is reused for the same header text
    /// (building a libcrypto key costs as much as verifying a signature).
    private func proofKey(_ jws: CompactJWS, protectedHeader: Substring.UTF8View) throws -> (JWK, String) {
        let headerText = String(Substring(protectedHeader))
        if let known = keys.key(for: headerText) { return known }
        guard let members = jws.header.members["jwk"]?.objectValue else {
            throw OIDCError(.dpopProofKey, "the DPoP proof has no jwk header")
        }
        if let member = Self.privateMembers.first(where: { members[$0] != nil }) {
            throw OIDCError(.dpopProofPrivateKey, "the DPoP proof's jwk carries the private member \"\(member)\"")
        }
        let key: JWK
        do { key = try JWK(embeddedJSONObject: members) } catch let error as JOSEError {
            throw OIDCError(.dpopProofKey, "the DPoP proof's jwk is not a usable key", joseError: error)
        }
        guard !key.isPrivate, key.keyType != .oct else { throw OIDCError(.dpopProofKey, "the DPoP proof's jwk is not an asymmetric public key") }
        let known = (key, key.thumbprint())
        keys.remember(known, for: headerText)
        return known
    }

    /// Validates `proof` for `target`.
    /// - Throws: ``OIDC/OIDCError`` with one of the `dpop_proof_*` codes, naming the failed rule.
    func validateProof(_ proof: String, for target: Target, nonce: NonceRule, presenting: Presentation) async throws -> VerifiedDPoPProof {
        let jws: CompactJWS
        do { jws = try CompactJWS(proof) } catch let error as JOSEError {
            throw OIDCError(.dpopProofMalformed, "the DPoP proof is not a compact JWS", joseError: error)
        }
        // JOSE's one typ rule (RFC 7515 §4.1.9): DPoP+JWT and application/dpop+jwt are dpop+jwt.
        guard jws.header.hasType("dpop+jwt") else { throw OIDCError(.dpopProofType, "the DPoP proof's typ is not dpop+jwt") }
        guard let algorithm = jws.header.signatureAlgorithm, allowedAlgorithms.contains(algorithm) else {
            throw OIDCError(.dpopProofAlgorithm, "the DPoP proof's alg is not an allowed asymmetric algorithm")
        }
        let (key, thumbprint) = try proofKey(jws, protectedHeader: proof.utf8.prefix { $0 != UInt8(ascii: ".") })
        // The key must be the token's before any work is spent on its signature (§4.3 step 12 first).
        if case .thumbprint(let bound) = presenting.binding, bound != thumbprint {
            throw OIDCError(.dpopProofKeyBinding, "the DPoP proof's key is not the one the access token is bound to (cnf.jkt)")
        }
        do { try jws.verify(with: key, policy: policy) } catch let error as JOSEError {
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
            guard let expected = Self.normalizedURI(uri), let given = Self.normalizedURI(htu), given == expected else {
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
        // ath (the key binding was compared before the signature).
        let presentedHash: String?
        switch presenting {
        case .noAccessToken: presentedHash = nil
        case .accessToken(let token, _): presentedHash = DPoPAccessTokenHash.of(token)
        case .accessTokenHash(let hash, _): presentedHash = hash
        }
        if let hash = presentedHash {
            guard let ath = try text("ath", .dpopProofAccessTokenHash), ath == hash else {
                throw OIDCError(.dpopProofAccessTokenHash, "the DPoP proof's ath is not the hash of the presented access token")
            }
        }
        if case .cache(let cache) = replays {
            let outcome: ReplayCacheOutcome
            do {
                outcome = try await cache.recordFirstUse(of: jti, scope: thumbprint, until: replayRetention(issuedAt: issuedAt), now: now)
            } catch {
                throw OIDCError(.dpopReplayCheckFailed, "the DPoP replay cache could not answer, so the proof is refused")
            }
            switch outcome {
            case .firstUse: break
            case .replayed: throw OIDCError(.dpopProofReplayed, "a DPoP proof with this jti was already received for this key")
            case .full:
                observer?.record(OIDCEvent(kind: .replayCacheFull, outcome: .failure(code: OIDCError.Code.replayCacheFull.rawValue), origin: target.origin))
                throw OIDCError(
                    .replayCacheFull, "the replay cache's share for this proof key is full of live entries, so this proof cannot be remembered and is refused")
            }
        }
        return VerifiedDPoPProof(
            key: key, thumbprint: thumbprint, algorithm: algorithm, jwtID: jti, method: htm, uri: htu,
            issuedAt: issuedAt, claims: claims)
    }
}
