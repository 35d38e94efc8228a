extension ProviderEndpoint {
    /// `registration_client_uri` (RFC 7592): where a registered client is read, updated and deleted.
    public static let registrationClient = ProviderEndpoint(rawValue: "registration_client_uri")
}
