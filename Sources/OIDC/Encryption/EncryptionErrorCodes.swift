import JOSE

/// Error codes of encrypted and signed responses: encrypted ID Tokens, signed or encrypted
/// UserInfo, JARM responses, encrypted introspection answers.
extension OIDCError.Code {
    /// The client registered encrypted ID Tokens and the ID Token is a plain JWS.
    public static let unencryptedIDToken = OIDCError.Code(rawValue: "unencrypted_id_token")
    /// The encrypted ID Token cannot be decrypted (no fitting key, algorithms not the registered ones,
    /// authentication failed); ``OIDCError/joseError`` says why.
    public static let idTokenDecryptionFailed = OIDCError.Code(rawValue: "id_token_decryption_failed")
    /// UserInfo arrived in another form than the one registered (JSON when a signed or encrypted
    /// answer was registered, a plain answer when an encrypted one was).
    public static let unexpectedUserInfoFormat = OIDCError.Code(rawValue: "unexpected_userinfo_format")
    /// The encrypted UserInfo answer cannot be decrypted; ``OIDCError/joseError`` says why.
    public static let userInfoDecryptionFailed = OIDCError.Code(rawValue: "userinfo_decryption_failed")
    /// The signed UserInfo answer does not verify with the provider's keys, or its `iss`/`aud` are not
    /// the provider's and the client's; ``OIDCError/joseError`` says why.
    public static let invalidUserInfoJWT = OIDCError.Code(rawValue: "invalid_userinfo_jwt")
    /// The JARM response JWT is missing, cannot be decrypted, does not verify with the provider's keys, or
    /// its `iss`, `aud` or `exp` are not acceptable; ``OIDCError/joseError`` says why when JOSE refused it.
    public static let invalidAuthorizationResponseJWT = OIDCError.Code(rawValue: "invalid_authorization_response_jwt")
}
