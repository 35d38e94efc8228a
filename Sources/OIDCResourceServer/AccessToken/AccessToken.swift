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
    /// `aud`, always as an array.
    public let audience: [String]
    /// `exp`
    public let expiresAt: Date
    /// `iat`
    public let issuedAt: Date
    /// `jti`
    public let jwtID: String
    /// `scope`, split on spaces (empty when the token has no `scope`).
    public let scopes: Set<String>
    /// `auth_time`, when present.
    public let authTime: Date?
    /// `acr`, when present.
    public let authenticationContextClass: String?
    /// `amr`, when present.
    public let authenticationMethods: [String]?
    /// The JWS header (`typ`, `alg`, `kid`).
    public let header: JOSEHeader
    /// Every claim, for the ones not typed here (`groups`, `roles`, `entitlements`, ...).
    public let claims: JWTClaims

    /// Whether the token carries every scope in `required`.
    public func hasScopes(_ required: Set<String>) -> Bool { required.isSubset(of: scopes) }

    /// e.g. `AccessToken(iss: "https://as", sub: "alice", client_id: "app", scopes: ["read"])`.
    public var description: String {
        "AccessToken(iss: \"\(issuer)\", sub: \"\(subject)\", client_id: \"\(clientID)\", scopes: \(scopes.sorted()))"
    }

    init(jwt: JWT) throws {
        let claims = jwt.claims
        func required<T>(_ name: String, _ value: T?) throws -> T {
            guard let value else { throw OIDCError(.missingAccessTokenClaim, "the access token has no \"\(name)\" (RFC 9068 §2.2)") }
            return value
        }
        issuer = try required("iss", ClaimErrors.read { try claims.issuer })
        subject = try required("sub", ClaimErrors.read { try claims.subject })
        clientID = try required("client_id", ClaimErrors.read { try claims.string("client_id") })
        audience = try required("aud", ClaimErrors.read { try claims.audience })
        expiresAt = try required("exp", ClaimErrors.read { try claims.expiresAt })
        issuedAt = try required("iat", ClaimErrors.read { try claims.issuedAt })
        jwtID = try required("jti", ClaimErrors.read { try claims.jwtID })
        let scope = try ClaimErrors.read { try claims.string("scope") }
        scopes = Set((scope ?? "").split(separator: " ", omittingEmptySubsequences: true).map(String.init))
        authTime = try ClaimErrors.read { try claims.date("auth_time") }
        authenticationContextClass = try ClaimErrors.read { try claims.string("acr") }
        authenticationMethods = try ClaimErrors.read { try claims.claim("amr", as: [String].self) }
        header = jwt.header
        self.claims = claims
    }
}
