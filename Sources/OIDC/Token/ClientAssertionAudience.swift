/// The `aud` of a `private_key_jwt` / `client_secret_jwt` client assertion.
///
/// ``issuer`` is the default: the current guidance (RFC 7523bis, FAPI 2.0)
/// that closes the audience-injection weakness of endpoint-URL audiences.
/// ``endpointURL`` is for providers that insist on the URL of the endpoint
/// called (glewlwyd 2.7.5 wants the PAR or token endpoint URL and refuses
/// the issuer identifier). It is a named setting, never guessed.
public enum ClientAssertionAudience: String, Sendable, Hashable, Codable, CaseIterable {
    /// `aud` = the issuer identifier.
    case issuer
    /// `aud` = the URL of the endpoint the assertion is sent to.
    case endpointURL = "endpoint"
}
