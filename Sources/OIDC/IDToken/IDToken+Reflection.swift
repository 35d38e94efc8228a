/// `dump` and `Mirror` show who the ID Token is about, never the token itself
/// (``IDToken/compact`` is a credential: it works as an `id_token_hint`).
extension IDToken: CustomReflectable {
    /// The algorithm and the identifying claims; the compact token is redacted.
    public var customMirror: Mirror {
        Mirror(
            self,
            children: [
                "algorithm": algorithm as Any, "issuer": issuer as Any, "subject": subject as Any,
                "audience": audience, "expiresAt": expiresAt as Any, "issuedAt": issuedAt as Any,
                "compact": "[redacted]",
            ], displayStyle: .struct)
    }
}
