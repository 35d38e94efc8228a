extension ProviderEndpoint {
    /// `https://HOST/.well-known/webfinger` (RFC 7033), the issuer discovery query of OpenID Connect Discovery §2.
    public static let webFinger = ProviderEndpoint(rawValue: "webfinger")
}
