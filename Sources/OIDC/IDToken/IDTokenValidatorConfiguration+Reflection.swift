/// `dump` and `Mirror` show the configuration without the client secret (only
/// whether one is set), like ``IDTokenValidator/Configuration/description``.
extension IDTokenValidator.Configuration: CustomReflectable {
    /// Every setting except the secret's value.
    public var customMirror: Mirror {
        Mirror(
            self,
            children: [
                "issuer": issuer, "clientID": clientID, "allowedAlgorithms": allowedAlgorithms as Any,
                "providerAlgorithms": providerAlgorithms as Any, "clientSecret": clientSecret == nil ? "none" : "set (redacted)",
                "leeway": leeway, "maximumTokenAge": maximumTokenAge as Any, "minimumRSAKeyBits": minimumRSAKeyBits, "limits": limits,
                "insecureSkipSignatureCheck": insecureSkipSignatureCheck, "insecureSkipIssuerCheck": insecureSkipIssuerCheck,
                "insecureSkipClientIDCheck": insecureSkipClientIDCheck, "insecureSkipExpiryCheck": insecureSkipExpiryCheck,
            ], displayStyle: .struct)
    }
}
