import JOSE
import OIDCCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// An access token ``ResourceGuard`` accepted for one request: who it is for, which client holds it, what it grants
/// and what it is bound to, the same for a JWT access token and an introspected one. Holds no token text.
public struct ValidatedAccessToken: Sendable, CustomStringConvertible {
    /// Where the token's claims came from.
    public enum Source: Sendable {
        /// An RFC 9068 JWT access token, verified locally.
        case jwt(AccessToken)
        /// The authorization server's introspection answer (RFC 7662, or RFC 9701 signed).
        case introspection(TokenIntrospection)
    }

    /// The validated claims, typed per kind.
    public let source: Source
    /// The `Authorization` scheme: `Bearer` only for a token bound to no DPoP key.
    public let scheme: AuthorizationScheme
    /// The DPoP proof: present exactly when ``scheme`` is `DPoP`; its key's thumbprint is the token's `cnf.jkt`.
    public let proof: VerifiedDPoPProof?

    /// `sub`: the resource owner, or the client itself; `nil` only when an introspection answer has none.
    public var subject: String? {
        switch source {
        case .jwt(let token): token.subject
        case .introspection(let answer): answer.subject
        }
    }

    /// `client_id` (or the claim the provider profile reads instead); `nil` only when an introspection answer has none.
    public var clientID: String? {
        switch source {
        case .jwt(let token): token.clientID
        case .introspection(let answer): answer.clientID
        }
    }

    /// `scope`, split on spaces (empty when the token grants none).
    public var scopes: Set<String> {
        switch source {
        case .jwt(let token): token.scopes
        case .introspection(let answer): answer.scopes
        }
    }

    /// `cnf` (RFC 7800): the DPoP key or client certificate the token is bound to, already enforced; `nil` when unbound.
    public var confirmation: TokenConfirmation? {
        switch source {
        case .jwt(let token): token.confirmation
        case .introspection(let answer): try? answer.confirmation  // read once already by the check: well-formed here
        }
    }

    /// Every claim of the JWT, or every member of the introspection answer, for the ones not typed here.
    public var claims: JSONObject {
        switch source {
        case .jwt(let token): token.claims.object
        case .introspection(let answer): answer.members
        }
    }

    /// The token's `authorization_details` (RFC 9396) when it carries at least one object of every type in `types`.
    /// - Throws: ``/OIDCCore/OIDCError`` `.insufficientAuthorizationDetails` naming the first type not granted;
    ///   `.invalidAuthorizationDetails` for a malformed claim.
    @discardableResult
    public func requireAuthorizationDetails(types: [String]) throws -> [AuthorizationDetail] {
        switch source {
        case .jwt(let token): try token.requireAuthorizationDetails(types: types)
        case .introspection(let answer): try answer.requireAuthorizationDetails(types: types)
        }
    }

    /// The token's `authorization_details` (RFC 9396 §9), typed; `nil` when absent.
    /// - Throws: ``/OIDCCore/OIDCError`` `.invalidAuthorizationDetails` when the claim is not an array of objects with `type`.
    public var authorizationDetails: [AuthorizationDetail]? {
        get throws {
            switch source {
            case .jwt(let token): try token.authorizationDetails
            case .introspection(let answer): try answer.authorizationDetails
            }
        }
    }

    /// e.g. `DPoP AccessToken(iss: ..., sub: ...) with VerifiedDPoPProof(ES256, ...)`.
    public var description: String {
        let claims: String
        switch source {
        case .jwt(let token): claims = "\(token)"
        case .introspection(let answer): claims = "\(answer)"
        }
        return "\(scheme.rawValue) \(claims)" + (proof.map { " with \($0)" } ?? "")
    }
}
