/// The SD-JWT VC rules (draft-ietf-oauth-sd-jwt-vc) on top of SD-JWT verification: `typ: dc+sd-jwt` (or the
/// older `vc+sd-jwt`), `vct` required, and the claims that must stay in clear never selectively disclosed.
/// Fetching the issuer's key (JWT VC issuer metadata) is the caller's: this type holds the format rules only.
public enum SDJWTVC {
    /// The media type of an SD-JWT VC's issuer-signed JWT.
    public static let type = "dc+sd-jwt"
    /// The type older issuers use, still accepted.
    public static let legacyType = "vc+sd-jwt"
    /// The top-level claims that must never be selectively disclosed.
    public static let neverDisclosable: Set<String> = ["iss", "nbf", "exp", "cnf", "vct", "vct#integrity", "status"]

    /// Verifies an SD-JWT VC: ``SDJWT/verify(keys:policy:)``, then the typ, `vct` and never-disclosable rules.
    /// `iss`, `iat`, `nbf` and `exp` are checked as the policy's claim checks say (time rules always; `iss` when set).
    /// - Throws: ``JOSEError``: the codes of SD-JWT verification, `.invalidHeader` (typ), `.missingClaim` or
    ///   `.claimTypeMismatch` (`vct`, `iss`), `.sdClaimNotDisclosable`.
    public static func verify(_ sdjwt: SDJWT, keys: JWKSet, policy: SDJWTVerificationPolicy = SDJWTVerificationPolicy()) throws -> VerifiedSDJWT {
        let verified = try sdjwt.verify(keys: keys, policy: policy)
        guard let typ = verified.header.type, SDJWT.sameMediaType(typ, type) || SDJWT.sameMediaType(typ, legacyType) else {
            throw JOSEError(.invalidHeader, "an SD-JWT VC's \"typ\" must be \"dc+sd-jwt\" (or \"vc+sd-jwt\")", member: "typ")
        }
        for placed in verified.disclosures {
            guard let name = placed.disclosure.name, placed.pointer == SDJWTPointer.text([name]), neverDisclosable.contains(name) else { continue }
            throw JOSEError(.sdClaimNotDisclosable, "\"\(name)\" must not be selectively disclosed in an SD-JWT VC", member: name)
        }
        guard let vct = verified.claims["vct"] else { throw JOSEError(.missingClaim, "an SD-JWT VC has no \"vct\"", member: "vct") }
        guard vct.stringValue != nil else { throw JOSEError(.claimTypeMismatch, "\"vct\" must be a string", member: "vct") }
        _ = try verified.claims.issuer  // a non-string iss is refused
        return verified
    }

    /// Verifies an SD-JWT VC whose issuer key is the leaf certificate of the issuer-signed JWT's `x5c` header: the
    /// chain must validate against `trustAnchors` at the policy's clock time (libcrypto's X.509 path validation; an
    /// `x5c` is never trusted on its own), then ``verify(_:keys:policy:)`` runs with the leaf's key, and the leaf must
    /// name the credential's `iss` (a URI SAN equal to it, or a DNS SAN equal to the host of an `https` issuer).
    /// - Throws: ``JOSEError``: `.x5cInvalid`, `.x5cUntrusted`, `.x5cIssuerMismatch`, `.missingClaim` (no `iss`),
    ///   and the codes of ``verify(_:keys:policy:)``.
    public static func verify(_ sdjwt: SDJWT, trustAnchors: X509TrustAnchors, policy: SDJWTVerificationPolicy = SDJWTVerificationPolicy()) throws
        -> VerifiedSDJWT
    {
        let header = try CompactJWS(sdjwt.issuerSignedJWT, limits: policy.signature.limits).header
        let chain = try X509Chain.certificates(ofX5C: header.members["x5c"])
        let leaf = try X509Chain.validate(chain, anchors: trustAnchors, at: policy.claims.clock())
        let verified = try verify(sdjwt, keys: JWKSet(keys: [leaf.key]), policy: policy)
        guard let issuer = try verified.claims.issuer else {
            throw JOSEError(.missingClaim, "an SD-JWT VC verified with x5c needs an \"iss\" the certificate names", member: "iss")
        }
        guard try X509Chain.leaf(leaf.der, names: issuer) else {
            throw JOSEError(.x5cIssuerMismatch, "the x5c leaf certificate does not name the credential's issuer", member: "iss")
        }
        return verified
    }
}
