import JOSE

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Sign in with Apple's `client_secret`: an ES256 JWT the client signs with its team's private key
/// (header `kid` = the key id; `iss` = the team id, `sub` = the client id, `aud` = Apple's issuer,
/// `iat`, `exp` at most six months later), sent by `client_secret_post`. Made on first use, cached, and
/// made again once less than ``renewalMargin`` of its lifetime is left. Shared by copies (a reference
/// type); thread-safe. `description` and `Mirror` show neither the key nor the JWT.
public final class AppleClientSecret: Sendable, CustomStringConvertible, CustomReflectable {
    /// The longest lifetime Apple accepts: 15,777,000 s (six months).
    public static let maximumLifetime: TimeInterval = 15_777_000
    /// Apple's issuer, the JWT's default `aud`.
    public static let appleIssuer = "https://appleid.apple.com"

    /// The Apple Developer team id (`iss`).
    public let teamID: String
    /// The private key's id (`kid`).
    public let keyID: String
    /// The Services ID or App ID (`sub`, and the request's `client_id`).
    public let clientID: String
    /// The JWT's `aud`: Apple's issuer (a scripted provider's in tests).
    public let audience: String
    /// Seconds each JWT is valid (at most ``maximumLifetime``).
    public let lifetime: TimeInterval
    /// A JWT with less than this many seconds left is replaced before use.
    public let renewalMargin: TimeInterval
    private let key: JWK
    private let cache = Locked<(jwt: String, expiresAt: Date)?>(nil)

    /// A client secret maker.
    /// - Parameters:
    ///   - teamID: the team id (`iss`).
    ///   - keyID: the key id (`kid`).
    ///   - clientID: the Services ID or App ID (`sub`).
    ///   - key: the P-256 private key downloaded from Apple (`.p8`, read as a PEM `JWK`).
    ///   - audience: the `aud`; default Apple's issuer `https://appleid.apple.com`.
    ///   - lifetime: seconds each JWT lives; default one day, at most ``maximumLifetime``.
    ///   - renewalMargin: seconds before expiry a JWT is replaced; default one hour.
    /// - Throws: ``OIDCError`` `.invalidClientConfiguration` for an empty id, a lifetime outside (0, six months],
    ///   a margin not below the lifetime, or a key that is not a private P-256 key.
    public init(
        teamID: String, keyID: String, clientID: String, key: JWK, audience: String = AppleClientSecret.appleIssuer,
        lifetime: TimeInterval = 86_400, renewalMargin: TimeInterval = 3600
    ) throws {
        guard !teamID.isEmpty, !keyID.isEmpty, !clientID.isEmpty, !audience.isEmpty else {
            throw OIDCError(.invalidClientConfiguration, "Apple's client secret needs a team id, a key id, a client id and an audience")
        }
        guard lifetime.isFinite, lifetime > 0, lifetime <= Self.maximumLifetime else {
            throw OIDCError(.invalidClientConfiguration, "Apple's client secret lives at most 15777000 s (six months), and more than 0")
        }
        guard renewalMargin.isFinite, renewalMargin >= 0, renewalMargin < lifetime else {
            throw OIDCError(.invalidClientConfiguration, "the renewal margin must be at least 0 and below the lifetime")
        }
        guard key.isPrivate, key.admits(.es256) else {
            throw OIDCError(.invalidClientConfiguration, "Apple's client secret is signed with a private P-256 key (ES256)")
        }
        self.teamID = teamID
        self.keyID = keyID
        self.clientID = clientID
        self.key = key
        self.audience = audience
        self.lifetime = lifetime
        self.renewalMargin = renewalMargin
    }

    /// The JWT to send as `client_secret` at `now`: the cached one while more than ``renewalMargin`` is
    /// left, else a new one (cached).
    /// - Throws: ``OIDCError`` `.invalidTokenRequest` when the clock is outside the NumericDate range or signing fails.
    public func secret(now: Date) throws -> String {
        try cache.withLock { cached in
            if let cached, cached.expiresAt.timeIntervalSince(now) > renewalMargin, cached.expiresAt.timeIntervalSince(now) <= lifetime {
                return cached.jwt
            }
            guard let times = AssertionTimes.issuedAndExpiry(now: now, lifetime: lifetime, rounding: .down) else {
                throw OIDCError(.invalidTokenRequest, "Apple's client secret iat/exp do not fit in a NumericDate")
            }
            let claims: JSONObject = [
                "iss": .string(teamID), "iat": .integer(times.issuedAt), "exp": .integer(times.expiresAt),
                "aud": .string(audience), "sub": .string(clientID),
            ]
            let jwt: String
            do {
                jwt = try JWT.sign(claims, key: key, algorithm: .es256, header: ["kid": .string(keyID)])
            } catch let error as JOSEError {
                throw OIDCError(.invalidTokenRequest, "Apple's client secret could not be signed", joseError: error)
            }
            cached = (jwt, Date(timeIntervalSince1970: TimeInterval(times.expiresAt)))
            return jwt
        }
    }

    /// `AppleClientSecret(team: …, kid: …, client_id: …)`: no key, no JWT.
    public var description: String { "AppleClientSecret(team: \(teamID), kid: \(keyID), client_id: \(clientID))" }
    /// The ids only.
    public var customMirror: Mirror { Mirror(self, children: ["teamID": teamID, "keyID": keyID, "clientID": clientID]) }
}
