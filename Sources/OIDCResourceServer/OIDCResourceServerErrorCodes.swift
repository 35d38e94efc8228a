import JOSE
import OIDCCore

/// Every error code of `OIDCResourceServer` (the resource server), in one place, each with the category an application
/// branches on (``/OIDCCore/OIDCError/Category``). The strings are stable: they are the API.
extension OIDCError.Code {
    // MARK: invalidInput

    /// A token lacks an authorization detail type the resource requires (RFC 9396 §9).
    public static let insufficientAuthorizationDetails = OIDCError.Code("insufficient_authorization_details", .invalidInput)
    /// The access token lacks a scope the resource requires (RFC 6750 `insufficient_scope`).
    public static let insufficientScope = OIDCError.Code("insufficient_scope", .invalidInput)
    /// The introspection endpoint said the token is not active (RFC 7662 `active: false`).
    public static let inactiveToken = OIDCError.Code("inactive_token", .invalidInput)
    /// The introspection endpoint answered with plain JSON although a signed JWT answer (RFC 9701)
    /// is configured as required (``TokenIntrospector/JWTResponse/Requirement/required``).
    public static let unsignedIntrospectionResponse = OIDCError.Code("unsigned_introspection_response", .invalidInput)
    /// The request carries no bearer token (RFC 6750 §3.1: no error code in the challenge).
    public static let missingBearerToken = OIDCError.Code("missing_bearer_token", .invalidInput)
    /// The request carries the token in a malformed way, or in more than one place (RFC 6750 `invalid_request`).
    public static let invalidBearerRequest = OIDCError.Code("invalid_bearer_request", .invalidInput)
    /// A DPoP proof is not one well-formed compact JWS with a JSON claim set (RFC 9449 §4.3 steps 1–3).
    public static let dpopProofMalformed = OIDCError.Code("dpop_proof_malformed", .invalidInput)
    /// A DPoP proof's `typ` is not exactly `dpop+jwt` (§4.3 step 4).
    public static let dpopProofType = OIDCError.Code("dpop_proof_typ", .invalidInput)
    /// A DPoP proof's `alg` is `none`, symmetric or not allowed (§4.3 step 5).
    public static let dpopProofAlgorithm = OIDCError.Code("dpop_proof_alg", .invalidInput)
    /// A DPoP proof's `jwk` header is missing or not a usable public key (§4.3 step 7).
    public static let dpopProofKey = OIDCError.Code("dpop_proof_jwk", .invalidInput)
    /// A DPoP proof's `jwk` header carries private key members (§4.3 step 7).
    public static let dpopProofPrivateKey = OIDCError.Code("dpop_proof_private_jwk", .invalidInput)
    /// A DPoP proof's signature does not verify with its `jwk` (§4.3 step 6).
    public static let dpopProofSignature = OIDCError.Code("dpop_proof_signature", .invalidInput)
    /// A DPoP proof has no `jti` (§4.3 step 3).
    public static let dpopProofJTI = OIDCError.Code("dpop_proof_jti", .invalidInput)
    /// A DPoP proof's `htm` is not the request's method (§4.3 step 8).
    public static let dpopProofMethod = OIDCError.Code("dpop_proof_htm", .invalidInput)
    /// A DPoP proof's `htu` is not the request's URI (§4.3 step 9).
    public static let dpopProofURI = OIDCError.Code("dpop_proof_htu", .invalidInput)
    /// A DPoP proof's `iat` is missing, too old or in the future (§4.3 step 11).
    public static let dpopProofIssuedAt = OIDCError.Code("dpop_proof_iat", .invalidInput)
    /// A DPoP proof's `nonce` is missing or not the one the server gave (§4.3 step 10).
    public static let dpopProofNonce = OIDCError.Code("dpop_proof_nonce", .invalidInput)
    /// A DPoP proof's `ath` is missing or not the hash of the presented access token (§4.3 step 12).
    public static let dpopProofAccessTokenHash = OIDCError.Code("dpop_proof_ath", .invalidInput)
    /// A DPoP proof's key is not the one the access token is bound to (`cnf.jkt`, §4.3 step 12).
    public static let dpopProofKeyBinding = OIDCError.Code("dpop_proof_jkt", .invalidInput)
    /// A DPoP proof's `jti` was already seen within the replay window (§11.1).
    public static let dpopProofReplayed = OIDCError.Code("dpop_proof_replayed", .invalidInput)
    /// The request uses the `DPoP` authorization scheme without exactly one `DPoP` header (RFC 9449 §4.3 step 1).
    public static let dpopProofMissing = OIDCError.Code("dpop_proof_missing", .invalidInput)
    /// A token bound to a DPoP key (`cnf.jkt`) was presented with the `Bearer` scheme (RFC 9449 §7.1):
    /// refused, since a bearer presentation proves no key.
    public static let dpopBoundTokenAsBearer = OIDCError.Code("dpop_bound_token_as_bearer", .invalidInput)
    /// A token without `cnf.jkt` was presented with the `DPoP` scheme (RFC 9449 §7.1).
    public static let dpopTokenNotBound = OIDCError.Code("dpop_token_not_bound", .invalidInput)
    /// A token bound to a client certificate (`cnf.x5t#S256`, RFC 8705 §3) was presented without that
    /// certificate: a certificate-bound token needs the client certificate.
    public static let certificateBoundToken = OIDCError.Code("certificate_bound_token", .invalidInput)

    // MARK: unavailable

    /// The replay cache could not answer (e.g. its database is unreachable): the proof is refused, never
    /// accepted unchecked.
    public static let dpopReplayCheckFailed = OIDCError.Code("dpop_replay_check_failed", .unavailable)
}
