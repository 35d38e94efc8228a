import JOSE

/// Maps JOSE verification failures onto the OIDC error codes.
package enum VerificationErrors {
    /// The token's algorithm, refusing `none` with its own code.
    package static func algorithm(of header: JOSEHeader) throws -> JWSAlgorithm {
        do {
            return try JWSAlgorithm(headerValue: header.algorithmName ?? "")
        } catch let error as JOSEError {
            throw map(error, header: header)
        }
    }

    package static func map(_ error: JOSEError, header: JOSEHeader?) -> OIDCError {
        switch error.code {
        case .unsupportedAlgorithm:
            if header?.algorithmName?.lowercased() == "none" {
                return OIDCError(.unsecuredToken, "the token is unsecured (alg \"none\"), which is never accepted", joseError: error)
            }
            return OIDCError(.unsupportedAlgorithm, "the token's algorithm is not supported", joseError: error)
        case .algorithmNotAllowed, .keyAlgorithmMismatch:
            return OIDCError(.algorithmNotAllowed, "the token's algorithm is not allowed for this key or client", joseError: error)
        case .keyNotFound:
            if let kid = header?.keyID {
                return OIDCError(.signingKeyNotFound, "no key in the JWK Set has the token's kid \"\(kid.prefix(64))\"", joseError: error)
            }
            return OIDCError(.signingKeyNotFound, "no key in the issuer's JWK Set fits the token", joseError: error)
        case .ambiguousKey:
            return OIDCError(.ambiguousSigningKey, "the token has no usable kid and several keys fit it", joseError: error)
        case .unsupportedKeyType:
            return OIDCError(.unsupportedKeyType, "the token's kid names a key of a type this library does not support", joseError: error)
        case .algorithmUnavailable:
            return OIDCError(.algorithmUnavailable, "the token's algorithm is not provided by this system's libcrypto", joseError: error)
        case .weakKey, .keyUsageNotPermitted, .invalidKeySet, .invalidKey, .unsupportedKey:
            return OIDCError(.unusableSigningKey, "the signing key cannot be used for verification", joseError: error)
        case .invalidSignature:
            return OIDCError(.invalidSignature, "the token's signature does not verify", joseError: error)
        case .invalidHeader, .unsupportedCriticalHeader:
            return OIDCError(.invalidIDTokenHeader, "the token's header is not acceptable", joseError: error)
        case .claimTypeMismatch:
            return OIDCError(.claimTypeMismatch, error.reason, joseError: error)
        default:
            return OIDCError(.malformedIDToken, "the token is not a well-formed signed JWT", joseError: error)
        }
    }
}
