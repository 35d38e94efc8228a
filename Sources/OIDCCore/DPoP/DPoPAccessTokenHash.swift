import JOSE

/// The `ath` of a DPoP proof (RFC 9449 §4.2): the base64url SHA-256 of the access token's ASCII bytes.
/// One copy, for the client that makes proofs and the resource server that checks them.
package enum DPoPAccessTokenHash {
    /// The hash of `accessToken`, hashed where its bytes lie (a token inside an `Authorization` value).
    package static func of(_ accessToken: Substring) -> String {
        let digest =
            accessToken.utf8.withContiguousStorageIfAvailable { DigestAlgorithm.sha256.hash(UnsafeRawBufferPointer($0)) }
            ?? DigestAlgorithm.sha256.hash(Array(accessToken.utf8))
        return Base64URL.encode(digest)
    }

    /// The hash of `accessToken`.
    package static func of(_ accessToken: String) -> String { of(accessToken[...]) }
}
