extension OIDCError.Code {
    /// A DPoP key or proof could not be made (public key, unsupported algorithm, signing failure).
    public static let dpopProofFailed = OIDCError.Code(rawValue: "dpop_proof_failed")
    /// A DPoP proof's target URL is not an absolute http(s) URL.
    public static let dpopInvalidTarget = OIDCError.Code(rawValue: "dpop_invalid_target")
    /// A token response said `token_type: DPoP` although no DPoP proof was sent,
    /// or said `Bearer` where a DPoP-bound token was required.
    public static let dpopTokenTypeMismatch = OIDCError.Code(rawValue: "dpop_token_type_mismatch")
}
