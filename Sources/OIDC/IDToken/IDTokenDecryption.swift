import JOSE

extension IDTokenValidator.Configuration {
    /// The signed ID Token: `token` itself when it is a JWS, the JWS inside when it is encrypted
    /// (decrypted with ``decryptionKeys`` under ``idTokenEncryption``). Not yet verified.
    /// - Parameters:
    ///   - token: the ID Token as received (or as stored).
    ///   - requiringRegisteredEncryption: refuse a plain ID Token when ``idTokenEncryption`` is set
    ///     (`false` only for a token already validated and stored in its decrypted form).
    /// - Throws: ``OIDCError`` `.unencryptedIDToken`, `.idTokenDecryptionFailed`, `.malformedIDToken`
    ///   (the plaintext is not a signed JWT).
    package func signedIDToken(_ token: String, requiringRegisteredEncryption: Bool) throws -> String {
        guard NestedJWT.isEncrypted(token) else {
            if requiringRegisteredEncryption, let registered = idTokenEncryption {
                throw OIDCError(.unencryptedIDToken, "the client registered encrypted ID Tokens (\(registered)) and the ID Token is not encrypted")
            }
            return token
        }
        guard !decryptionKeys.isEmpty else {
            throw OIDCError(.idTokenDecryptionFailed, "the ID Token is encrypted and the client has no decryption key")
        }
        do {
            return try NestedJWT.signedToken(
                in: token, decryptionKeys: decryptionKeys,
                policy: ResponseEncryption.policy(idTokenEncryption, minimumRSAKeyBits: minimumRSAKeyBits))
        } catch let error as JOSEError {
            if error.code == .malformedToken, error.member != "cty" {
                throw OIDCError(.malformedIDToken, "the encrypted ID Token does not hold a signed JWT", joseError: error)
            }
            throw OIDCError(.idTokenDecryptionFailed, "the encrypted ID Token cannot be decrypted: \(error.reason)", joseError: error)
        }
    }

    /// An ID Token this client already validated (stored, or the one a refresh or UserInfo is compared with),
    /// decrypted when it was stored encrypted and read with this configuration's limits and provider profile:
    /// the one reading of a kept ID Token, so a claim form the profile admits at login (Auth0's ISO 8601
    /// `updated_at`) is admitted on every later path too. Not verified again.
    /// - Throws: as ``signedIDToken(_:requiringRegisteredEncryption:)`` and ``IDToken/init(_:limits:providerProfile:)``.
    package func validatedIDToken(_ token: String) throws -> IDToken {
        try IDToken(signedIDToken(token, requiringRegisteredEncryption: false), limits: limits, providerProfile: profile)
    }
}
