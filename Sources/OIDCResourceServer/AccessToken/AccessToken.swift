import JOSE
import OIDCCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A validated RFC 9068 JWT access token: the claims every such token carries,
/// typed, and the rest reachable through ``claims``. `description` shows no token.
public struct AccessToken: Sendable, CustomStringConvertible {
    /// `iss`
    public let issuer: String
    /// `sub`: the resource owner, or the client itself for client credentials (validated present and a
    /// string; read from ``claims`` on use).
    public var subject: String { text(of: "sub") }
    /// `client_id` (or the claim the profile reads instead, e.g. `azp`; validated present and a string,
    /// read from ``claims`` on use).
    public var clientID: String { text(of: clientIDClaim) }
    /// `aud`, always as an array (read on use; validation found this resource server in it).
    public var audience: [String] { (try? jwt.claims.audience) ?? [] }
    /// `exp` (checked present, and a NumericDate within the leeway, by the time rules; read from ``claims`` on use).
    public var expiresAt: Date { ((try? jwt.claims.expiresAt) ?? nil) ?? .distantPast }
    /// `iat` (checked present, and a NumericDate not in the future, by the time rules; read from ``claims`` on use).
    public var issuedAt: Date { ((try? jwt.claims.issuedAt) ?? nil) ?? .distantPast }
    /// `jti` (or `uti` for Entra ID; validated present and a string, read from ``claims`` on use).
    public var jwtID: String { text(of: jwtIDClaim) }
    /// `scope` as sent (space-separated), if any (`scp` for Entra ID; validated a string when present,
    /// read from ``claims`` on use).
    public var scope: String? { scopeClaim.map { text(of: $0) } }
    /// `scope`, split on spaces (empty when the token has no `scope`); built on use.
    public var scopes: Set<String> { Set(scopeTokens.map(String.init)) }
    /// The `scope` values without building a set (the validation's hot path).
    var scopeTokens: [Substring] { scope?.split(separator: " ") ?? [] }
    /// `auth_time`, when present (read on use).
    /// - Throws: ``/OIDCCore/OIDCError`` `.claimTypeMismatch` when it is not a NumericDate.
    public var authTime: Date? { get throws { try ClaimErrors.read { try jwt.claims.date("auth_time") } } }
    /// `acr`, when present (read on use).
    /// - Throws: ``/OIDCCore/OIDCError`` `.claimTypeMismatch` when it is not a string.
    public var authenticationContextClass: String? { get throws { try ClaimErrors.read { try jwt.claims.string("acr") } } }
    /// `amr`, when present (read on use).
    /// - Throws: ``/OIDCCore/OIDCError`` `.claimTypeMismatch` when it is not an array of strings.
    public var authenticationMethods: [String]? { get throws { try ClaimErrors.read { try jwt.claims.claim("amr", as: [String].self) } } }
    /// `cnf` (RFC 7800): the DPoP key (`jkt`) or client certificate (`x5t#S256`) the token is
    /// bound to; `nil` for an unbound token. ``ResourceGuard`` enforces it.
    public let confirmation: TokenConfirmation?
    /// `nbf`, when present (checked a NumericDate by the time rules; read on use).
    var notBefore: Date? { (try? jwt.claims.notBefore) ?? nil }
    /// `sid`, when present and a string: the session the token was issued in (read on use).
    var sessionID: String? { (try? jwt.claims.string("sid")) ?? nil }
    /// The key the signature was verified with.
    var verifyingKey: JWK { jwt.key }
    /// The JWS header (`typ`, `alg`, `kid`).
    public var header: JOSEHeader { jwt.header }
    /// Every claim, for the ones not typed here (`groups`, `roles`, `entitlements`, ...).
    public var claims: JWTClaims { jwt.claims }
    /// The verified token, moved in whole from the validation (no field is copied out of it).
    private let jwt: JWT

    /// Which claims the string properties read (checked present, and strings, when the token was read):
    /// flags rather than names, so a copy of the token retains nothing more.
    private let clientIDFromAuthorizedParty: Bool
    private let jwtIDFromUti: Bool
    private let scopeSource: ScopeSource

    /// Where `scope` is read from.
    private enum ScopeSource { case none, scope, scp }

    private var clientIDClaim: String { clientIDFromAuthorizedParty ? "azp" : "client_id" }
    private var jwtIDClaim: String { jwtIDFromUti ? "uti" : "jti" }
    private var scopeClaim: String? {
        switch scopeSource {
        case .none: return nil
        case .scope: return "scope"
        case .scp: return "scp"
        }
    }

    /// A string claim the initializer checked is present and a string.
    private func text(of name: String) -> String { ((try? jwt.claims.string(name)) ?? nil) ?? "" }

    /// Whether the token carries every scope in `required` (a scan of the `scope` text, no allocation).
    public func hasScopes(_ required: Set<String>) -> Bool {
        guard let scopeClaim else { return required.isEmpty }
        if required.isEmpty { return true }
        // Bytes, not Characters: `scope` is space-separated ASCII-safe tokens (RFC 6749 §3.3), and a
        // grapheme-level scan costs more than the rest of the claim checks. Read in place when written
        // without escapes (always, in practice), else from the decoded text.
        if let range = jwt.claims.unescapedStringRange(scopeClaim) {
            return jwt.claims.payload.withUnsafeBufferPointer { Self.scopeText(UnsafeBufferPointer(rebasing: $0[range]), containsAll: required) }
        }
        var decoded = text(of: scopeClaim)
        return decoded.withUTF8 { Self.scopeText($0, containsAll: required) }
    }

    /// Whether space-separated `text` holds every entry of `required` as one of its tokens.
    static func scopeText(_ text: UnsafeBufferPointer<UInt8>, containsAll required: Set<String>) -> Bool {
        for wanted in required {
            // A native scope string is read where it lies (no copy); any other is copied once.
            let found =
                wanted.utf8.withContiguousStorageIfAvailable { scopeText(text, contains: $0) }
                ?? {
                    var copy = wanted; return copy.withUTF8 { scopeText(text, contains: $0) }
                }()
            if !found { return false }
        }
        return true
    }

    /// Whether space-separated `text` holds `wanted` as one of its tokens.
    private static func scopeText(_ text: UnsafeBufferPointer<UInt8>, contains wanted: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let base = text.baseAddress else { return false }
        var start = 0
        while start < text.count {
            var end = start
            while end < text.count, base[end] != UInt8(ascii: " ") { end += 1 }
            if end - start == wanted.count {
                guard let other = wanted.baseAddress, wanted.count > 0 else { return true }
                if memcmp(base + start, other, wanted.count) == 0 { return true }
            }
            start = end + 1
        }
        return false
    }

    /// e.g. `AccessToken(iss: "https://as", sub: "alice", client_id: "app", scopes: ["read"])`.
    public var description: String {
        "AccessToken(iss: \"\(issuer)\", sub: \"\(subject)\", client_id: \"\(clientID)\", scopes: \(scopes.sorted()))"
    }

    /// The same token in storage of its own (``JWT/detached()``, and its strings copied): what a thread keeps to serve
    /// a verified token again without writing to reference counts other threads share (``VerifiedTokenStore``).
    func detached() -> AccessToken {
        AccessToken(
            issuer: Self.ownCopy(issuer),
            confirmation: confirmation.map {
                TokenConfirmation(jwkThumbprint: $0.jwkThumbprint.map(Self.ownCopy), certificateThumbprint: $0.certificateThumbprint.map(Self.ownCopy))
            },
            jwt: jwt.detached(), clientIDFromAuthorizedParty: clientIDFromAuthorizedParty, jwtIDFromUti: jwtIDFromUti, scopeSource: scopeSource)
    }

    /// `text` in a buffer of its own.
    private static func ownCopy(_ text: String) -> String { String(decoding: Array(text.utf8), as: UTF8.self) }

    private init(
        issuer: String, confirmation: TokenConfirmation?, jwt: JWT, clientIDFromAuthorizedParty: Bool, jwtIDFromUti: Bool, scopeSource: ScopeSource
    ) {
        self.issuer = issuer
        self.confirmation = confirmation
        self.jwt = jwt
        self.clientIDFromAuthorizedParty = clientIDFromAuthorizedParty
        self.jwtIDFromUti = jwtIDFromUti
        self.scopeSource = scopeSource
    }

    /// Reads the claims of a token whose signature, times (JOSE's time rules: `exp`, `nbf`, `iat` NumericDates
    /// when present), `iss` and `aud` were checked;
    /// `issuer` is the value `iss` was found equal to (not read again).
    /// With `clientFromAuthorizedParty` (Keycloak, Entra ID), `azp` stands for an absent `client_id`; with
    /// `entraNames`, `uti` for an absent `jti` and `scp` for an absent `scope`.
    init(jwt: consuming JWT, issuer: String, clientFromAuthorizedParty: Bool = false, entraNames: Bool = false) throws {
        func missing(_ name: String) -> OIDCError {
            OIDCError(.missingAccessTokenClaim, "the access token has no \"\(name)\" (RFC 9068 §2.2)")
        }
        // Presence and type only, in place: the strings are read from `claims` on use.
        func requireString(_ name: String) throws -> Bool {
            guard let isString = jwt.claims.isString(name) else { return false }
            guard isString else { _ = try jwt.claims.string(name); return true }  // throws the type mismatch naming the claim
            return true
        }
        do {
            guard try requireString("sub") else { throw missing("sub") }
            if try requireString("client_id") {
                clientIDFromAuthorizedParty = false
            } else if clientFromAuthorizedParty, try requireString("azp") {
                clientIDFromAuthorizedParty = true
            } else {
                throw missing(clientFromAuthorizedParty ? "client_id\" nor \"azp" : "client_id")
            }
            // Presence only: the time rules applied before this read each present time claim as a NumericDate.
            guard jwt.claims.contains("exp") else { throw missing("exp") }
            guard jwt.claims.contains("iat") else { throw missing("iat") }
            if try requireString("jti") {
                jwtIDFromUti = false
            } else if entraNames, try requireString("uti") {
                jwtIDFromUti = true
            } else {
                throw missing(entraNames ? "jti\" nor \"uti" : "jti")
            }
            // kept as text: a Set per token costs more than the rest of this
            if try requireString("scope") {
                scopeSource = .scope
            } else if entraNames, try requireString("scp") {
                scopeSource = .scp
            } else {
                scopeSource = .none
            }
            confirmation = try jwt.claims["cnf"].map(TokenConfirmation.init(claim:))
        } catch let error as JOSEError {
            throw ClaimErrors.map(error)
        }
        self.issuer = issuer
        self.jwt = jwt
    }
}
