import OIDC

extension OIDCError.Code {
    /// A DPoP proof is not one well-formed compact JWS with a JSON claim set (RFC 9449 §4.3 steps 1–3).
    public static let dpopProofMalformed = OIDCError.Code(rawValue: "dpop_proof_malformed")
    /// A DPoP proof's `typ` is not exactly `dpop+jwt` (§4.3 step 4).
    public static let dpopProofType = OIDCError.Code(rawValue: "dpop_proof_typ")
    /// A DPoP proof's `alg` is `none`, symmetric or not allowed (§4.3 step 5).
    public static let dpopProofAlgorithm = OIDCError.Code(rawValue: "dpop_proof_alg")
    /// A DPoP proof's `jwk` header is missing or not a usable public key (§4.3 step 7).
    public static let dpopProofKey = OIDCError.Code(rawValue: "dpop_proof_jwk")
    /// A DPoP proof's `jwk` header carries private key members (§4.3 step 7).
    public static let dpopProofPrivateKey = OIDCError.Code(rawValue: "dpop_proof_private_jwk")
    /// A DPoP proof's signature does not verify with its `jwk` (§4.3 step 6).
    public static let dpopProofSignature = OIDCError.Code(rawValue: "dpop_proof_signature")
    /// A DPoP proof has no `jti` (§4.3 step 3).
    public static let dpopProofJTI = OIDCError.Code(rawValue: "dpop_proof_jti")
    /// A DPoP proof's `htm` is not the request's method (§4.3 step 8).
    public static let dpopProofMethod = OIDCError.Code(rawValue: "dpop_proof_htm")
    /// A DPoP proof's `htu` is not the request's URI (§4.3 step 9).
    public static let dpopProofURI = OIDCError.Code(rawValue: "dpop_proof_htu")
    /// A DPoP proof's `iat` is missing, too old or in the future (§4.3 step 11).
    public static let dpopProofIssuedAt = OIDCError.Code(rawValue: "dpop_proof_iat")
    /// A DPoP proof's `nonce` is missing or not the one the server gave (§4.3 step 10).
    public static let dpopProofNonce = OIDCError.Code(rawValue: "dpop_proof_nonce")
    /// A DPoP proof's `ath` is missing or not the hash of the presented access token (§4.3 step 12).
    public static let dpopProofAccessTokenHash = OIDCError.Code(rawValue: "dpop_proof_ath")
    /// A DPoP proof's key is not the one the access token is bound to (`cnf.jkt`, §4.3 step 12).
    public static let dpopProofKeyBinding = OIDCError.Code(rawValue: "dpop_proof_jkt")
    /// A DPoP proof's `jti` was already seen within the replay window (§11.1).
    public static let dpopProofReplayed = OIDCError.Code(rawValue: "dpop_proof_replayed")
    /// The replay cache could not answer (e.g. its database is unreachable): the proof is refused, never
    /// accepted unchecked.
    public static let dpopReplayCheckFailed = OIDCError.Code(rawValue: "dpop_replay_check_failed")
    /// The request uses the `DPoP` authorization scheme without exactly one `DPoP` header (RFC 9449 §4.3 step 1).
    public static let dpopProofMissing = OIDCError.Code(rawValue: "dpop_proof_missing")
    /// A token bound to a DPoP key (`cnf.jkt`) was presented with the `Bearer` scheme (RFC 9449 §7.1):
    /// refused, since a bearer presentation proves no key.
    public static let dpopBoundTokenAsBearer = OIDCError.Code(rawValue: "dpop_bound_token_as_bearer")
    /// A token without `cnf.jkt` was presented with the `DPoP` scheme (RFC 9449 §7.1).
    public static let dpopTokenNotBound = OIDCError.Code(rawValue: "dpop_token_not_bound")
    /// A token bound to a client certificate (`cnf.x5t#S256`, RFC 8705 §3) was presented without that
    /// certificate: a certificate-bound token needs the client certificate.
    public static let certificateBoundToken = OIDCError.Code(rawValue: "certificate_bound_token")
}
