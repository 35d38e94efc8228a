/// The single error type of the `JOSE` module.
///
/// Every failure carries a stable ``Code`` that programs can switch on and a
/// human-readable ``reason``. Neither ever contains key material, signatures
/// or token contents: a reason names *what* failed and *where*, not the data.
public struct JOSEError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What went wrong, as a stable machine-readable code.
    public enum Code: String, Sendable, Hashable, CaseIterable {
        /// Input is not strict unpadded Base64URL.
        case invalidBase64URL = "invalid_base64url"
        /// Input is not valid JSON (syntax, encoding, number range).
        case invalidJSON = "invalid_json"
        /// A JSON object names the same member twice.
        case duplicateJSONMember = "duplicate_json_member"
        /// A configured size, depth or count limit was exceeded.
        case limitExceeded = "limit_exceeded"
        /// The token does not have the shape of a JWS.
        case malformedToken = "malformed_token"
        /// A header member is missing, of the wrong type or not acceptable.
        case invalidHeader = "invalid_header"
        /// The `alg` names an algorithm this library does not implement (including `none`).
        case unsupportedAlgorithm = "unsupported_algorithm"
        /// The algorithm is not in the caller's allow-list.
        case algorithmNotAllowed = "algorithm_not_allowed"
        /// The key's type cannot be used with the algorithm (algorithm confusion).
        case keyAlgorithmMismatch = "key_algorithm_mismatch"
        /// The key is weaker than the policy allows (short RSA modulus or HMAC secret).
        case weakKey = "weak_key"
        /// The key is malformed or inconsistent.
        case invalidKey = "invalid_key"
        /// A key taken from a token or a proof (a DPoP `jwk`, a JWE `epk`) is beyond the limits for
        /// embedded keys (``EmbeddedKeyLimits``: an RSA public exponent above 2^32 or a modulus above
        /// 8192 bits), which would make checking it far costlier than an honest key.
        case embeddedKeyTooCostly = "embedded_key_too_costly"
        /// The key type or curve is not supported.
        case unsupportedKey = "unsupported_key"
        /// The key's `use` or `key_ops` does not permit the operation.
        case keyUsageNotPermitted = "key_usage_not_permitted"
        /// No key in the set fits the token.
        case keyNotFound = "key_not_found"
        /// Several keys fit the token and nothing tells them apart.
        case ambiguousKey = "ambiguous_key"
        /// The key set itself is unacceptable (duplicate `kid`, mixed symmetric and asymmetric keys).
        case invalidKeySet = "invalid_key_set"
        /// The signature does not verify.
        case invalidSignature = "invalid_signature"
        /// A `crit` header names an extension the caller did not declare.
        case unsupportedCriticalHeader = "unsupported_critical_header"
        /// The input is not a PEM block this library understands.
        case invalidPEM = "invalid_pem"
        /// A required claim is absent.
        case missingClaim = "missing_claim"
        /// A claim has the wrong JSON type, or is a NumericDate outside 0 ... 253402300799
        /// (9999-12-31T23:59:59Z).
        case claimTypeMismatch = "claim_type_mismatch"
        /// The token has expired (`exp`).
        case expired = "expired"
        /// The token is not valid yet (`nbf`).
        case notYetValid = "not_yet_valid"
        /// The token was issued in the future (`iat`).
        case issuedInFuture = "issued_in_future"
        /// `iss` is not the expected issuer.
        case issuerMismatch = "issuer_mismatch"
        /// `aud` does not contain the expected audience.
        case audienceMismatch = "audience_mismatch"
        /// A claim does not have the expected value.
        case claimMismatch = "claim_mismatch"
        /// A JWE could not be decrypted: wrong key, altered tag, ciphertext, IV,
        /// header or encrypted key. One code for every such failure, so that
        /// nothing tells the causes apart (RFC 7516 §11.4, §11.5).
        case decryptionFailed = "decryption_failed"
        /// libcrypto reported an internal failure.
        case cryptoFailure = "crypto_failure"
        /// A Token Status List or its token is malformed: `bits` not 1, 2, 4 or 8, `lst` not base64url zlib data,
        /// an index outside the list, a status list token without `sub`, `iat` or `status_list`.
        case invalidStatusList = "invalid_status_list"
        /// The credential's status list entry is 1 (invalid): the issuer revoked it.
        case credentialRevoked = "credential_revoked"
        /// The credential's status list entry is 2: the issuer suspended it.
        case credentialSuspended = "credential_suspended"
        /// The credential's status list entry is neither 0 (valid) nor 1 or 2: an application-specific or reserved
        /// value, named in the reason.
        case credentialStatusNotValid = "credential_status_not_valid"
        /// The token names (by `kid`) a key the JWK Set holds but this library skipped because it does not know its
        /// type, curve or `AKP` algorithm (a post-quantum key published beside classical ones): the set stays usable.
        case unsupportedKeyType = "unsupported_key_type"
        /// The algorithm is one this library implements, but the libcrypto it runs on does not provide it
        /// (ML-DSA before OpenSSL 3.5): probed once at run time.
        case algorithmUnavailable = "algorithm_unavailable"
        /// SD-JWT: `_sd_alg` names a hash function other than `sha-256`, `sha-384` or `sha-512`.
        case sdUnsupportedHashAlgorithm = "sd_unsupported_hash_algorithm"
        /// SD-JWT: a disclosure is not Base64URL of a JSON array `[salt, name, value]` or `[salt, value]`.
        case sdMalformedDisclosure = "sd_malformed_disclosure"
        /// SD-JWT: a disclosure's digest appears nowhere in the payload (a foreign or tampered disclosure).
        case sdUnreferencedDisclosure = "sd_unreferenced_disclosure"
        /// SD-JWT: a digest appears more than once in the payload.
        case sdDuplicateDigest = "sd_duplicate_digest"
        /// SD-JWT: the same disclosure is presented twice.
        case sdRepeatedDisclosure = "sd_repeated_disclosure"
        /// SD-JWT: a disclosure names a claim `_sd` or `...`.
        case sdReservedClaimName = "sd_reserved_claim_name"
        /// SD-JWT: a disclosed claim name is already present at that level of the payload.
        case sdClaimNameConflict = "sd_claim_name_conflict"
        /// SD-JWT: an array-element disclosure referenced from `_sd`, or an object-member one from `{"...": digest}`.
        case sdMisplacedDisclosure = "sd_misplaced_disclosure"
        /// SD-JWT: `_sd` is not an array of strings, or a `...` digest is not a string.
        case sdMalformedPayload = "sd_malformed_payload"
        /// SD-JWT: the verifier requires key binding and the presentation has no KB-JWT.
        case sdKeyBindingRequired = "sd_key_binding_required"
        /// SD-JWT: key binding is required and the issuer-signed JWT has no `cnf.jwk` holder key.
        case sdHolderKeyMissing = "sd_holder_key_missing"
        /// SD-JWT: the KB-JWT's `sd_hash` does not match the presentation it ends.
        case sdHashMismatch = "sd_hash_mismatch"
        /// SD-JWT: the KB-JWT's `iat` is older than the window the verifier allows.
        case sdKeyBindingStale = "sd_key_binding_stale"
        /// SD-JWT VC: a claim that must stay in clear (`iss`, `nbf`, `exp`, `cnf`, `vct`, `vct#integrity`, `status`) was disclosed.
        case sdClaimNotDisclosable = "sd_claim_not_disclosable"
        /// X.509: the `x5c` header is missing, not an array of 1 to 10 Base64 DER certificates, or one does not parse.
        case x5cInvalid = "x5c_invalid"
        /// X.509: the `x5c` chain does not validate against the application's trust anchors at the validation time
        /// (libcrypto's reason named).
        case x5cUntrusted = "x5c_untrusted"
        /// SD-JWT VC: the `x5c` leaf certificate does not name the credential's `iss` (no equal URI SAN, nor a DNS
        /// SAN equal to the host of an `https` issuer).
        case x5cIssuerMismatch = "x5c_issuer_mismatch"
    }

    /// The stable code.
    public let code: Code
    /// What failed, for people. Never contains secrets or token contents.
    public let reason: String
    /// The claim or header member concerned, when there is one.
    public let member: String?

    /// Creates an error.
    public init(_ code: Code, _ reason: String, member: String? = nil) {
        self.code = code
        self.reason = reason
        self.member = member
    }

    /// `code: reason`.
    public var description: String { "\(code.rawValue): \(reason)" }
}
