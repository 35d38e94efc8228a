#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import JOSE
import OIDC

/// A validated RFC 9068 JWT access token: the claims every such token carries,
/// typed, and the rest reachable through ``claims``. `description` shows no token.
public struct AccessToken: Sendable, CustomStringConvertible {
    /// `iss`
    public let issuer: String
    /// `sub`: the resource owner, or the client itself for client credentials.
    public let subject: String
    /// `client_id`
    public let clientID: String
    /// `aud`, always as an array (read on use; validation found this resource server in it).
    public var audience: [String] { (try? claims.audience) ?? [] }
    /// `exp`
    public let expiresAt: Date
    /// `iat`
    public let issuedAt: Date
    /// `jti`
    public let jwtID: String
    /// `scope` as sent (space-separated), if any.
    public let scope: String?
    /// `scope`, split on spaces (empty when the token has no `scope`); built on use.
    public var scopes: Set<String> { Set(scopeTokens.map(String.init)) }
    /// The `scope` values without building a set (the validation's hot path).
    var scopeTokens: [Substring] { scope?.split(separator: " ") ?? [] }
    /// `auth_time`, when present (read on use).
    /// - Throws: ``OIDC/OIDCError`` `.claimTypeMismatch` when it is not a NumericDate.
    public var authTime: Date? { get throws { try ClaimErrors.read { try claims.date("auth_time") } } }
    /// `acr`, when present (read on use).
    /// - Throws: ``OIDC/OIDCError`` `.claimTypeMismatch` when it is not a string.
    public var authenticationContextClass: String? { get throws { try ClaimErrors.read { try claims.string("acr") } } }
    /// `amr`, when present (read on use).
    /// - Throws: ``OIDC/OIDCError`` `.claimTypeMismatch` when it is not an array of strings.
    public var authenticationMethods: [String]? { get throws { try ClaimErrors.read { try claims.claim("amr", as: [String].self) } } }
    /// `cnf` (RFC 7800): the DPoP key (`jkt`) or client certificate (`x5t#S256`) the token is
    /// bound to; `nil` for an unbound token. ``AccessTokenValidator`` enforces it.
    public let confirmation: TokenConfirmation?
    /// The JWS header (`typ`, `alg`, `kid`).
    public let header: JOSEHeader
    /// Every claim, for the ones not typed here (`groups`, `roles`, `entitlements`, ...).
    public let claims: JWTClaims

    /// Whether the token carries every scope in `required` (a scan of the `scope` text, no allocation).
    public func hasScopes(_ required: Set<String>) -> Bool {
        guard let scope else { return required.isEmpty }
        // Bytes, not Characters: `scope` is space-separated ASCII-safe tokens (RFC 6749 §3.3), and a
        // grapheme-level scan costs more than the rest of the claim checks.
        let text = scope.utf8
        return required.allSatisfy { wanted in
            var start = text.startIndex
            while start < text.endIndex {
                let end = text[start...].firstIndex(of: UInt8(ascii: " ")) ?? text.endIndex
                if text[start..<end].elementsEqual(wanted.utf8) { return true }
                start = end == text.endIndex ? end : text.index(after: end)
            }
            return false
        }
    }

    /// e.g. `AccessToken(iss: "https://as", sub: "alice", client_id: "app", scopes: ["read"])`.
    public var description: String {
        "AccessToken(iss: \"\(issuer)\", sub: \"\(subject)\", client_id: \"\(clientID)\", scopes: \(scopes.sorted()))"
    }

    /// Reads the claims of a token whose signature, times, `iss` and `aud` were checked;
    /// `issuer` is the value `iss` was found equal to (not read again).
    init(jwt: JWT, issuer: String) throws {
        let claims = jwt.claims
        func missing(_ name: String) -> OIDCError {
            OIDCError(.missingAccessTokenClaim, "the access token has no \"\(name)\" (RFC 9068 §2.2)")
        }
        do {
            guard let subject = try claims.subject else { throw missing("sub") }
            guard let clientID = try claims.string("client_id") else { throw missing("client_id") }
            guard let expiresAt = try claims.expiresAt else { throw missing("exp") }
            guard let issuedAt = try claims.issuedAt else { throw missing("iat") }
            guard let jwtID = try claims.jwtID else { throw missing("jti") }
            let scope = try claims.string("scope")  // kept as text: a Set per token costs more than the rest of this
            confirmation = try claims["cnf"].map(TokenConfirmation.init(claim:))
            self.subject = subject
            self.clientID = clientID
            self.expiresAt = expiresAt
            self.issuedAt = issuedAt
            self.jwtID = jwtID
            self.scope = scope
        } catch let error as JOSEError {
            throw ClaimErrors.map(error)
        }
        self.issuer = issuer
        header = jwt.header
        self.claims = claims
    }
}
