/// A verified SD-JWT: the issuer-signed JWT's signature and claims checked, every disclosure found exactly once,
/// and the processed payload (disclosed values in place, `_sd`, `_sd_alg` and undisclosed array elements removed).
public struct VerifiedSDJWT: Sendable {
    /// One disclosure as the verifier placed it.
    public struct PlacedDisclosure: Sendable, Hashable {
        /// The decoded disclosure.
        public let disclosure: SDJWTDisclosure
        /// Its Base64URL digest with the SD-JWT's hash function.
        public let digest: String
        /// Where its value sits in the fully disclosed payload (RFC 6901, array indices before undisclosed elements are removed).
        public let pointer: String
    }

    /// The issuer-signed JWT's protected header.
    public let header: JOSEHeader
    /// The processed payload, with typed access (`issuer`, `subject`, `claim(_:as:)`, ...).
    public let claims: JWTClaims
    /// The disclosures, in presentation order.
    public let disclosures: [PlacedDisclosure]
    /// The hash function of the digests (`_sd_alg`).
    public let hashAlgorithm: SDJWTHashAlgorithm
    /// The issuer key that verified the issuer-signed JWT.
    public let issuerKey: JWK
    /// The verified KB-JWT, when the policy required key binding.
    public let keyBinding: JWT?
}
