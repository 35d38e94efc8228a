/// The `Authorization` schemes a protected resource accepts access tokens with.
public enum AuthorizationScheme: String, Sendable, Hashable, CaseIterable {
    /// `Bearer` (RFC 6750 §2.1): whoever holds the token may use it; never accepted for a bound token.
    case bearer = "Bearer"
    /// `DPoP` (RFC 9449 §7.1): the token with a proof of possession of the key it is bound to (`cnf.jkt`).
    case dpop = "DPoP"
}
