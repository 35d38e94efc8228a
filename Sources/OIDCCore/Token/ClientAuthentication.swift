import JOSE

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// How the client authenticates at the token endpoint (RFC 6749 §2.3, OpenID
/// Connect Core §9, RFC 7523). `description`, `dump` and `Mirror` never show a secret or key.
public enum ClientAuthentication: Sendable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// `client_secret_basic`: HTTP Basic with the form-encoded id and secret (RFC 6749 §2.3.1).
    case clientSecretBasic(clientID: String, secret: String)
    /// `client_secret_post`: id and secret in the form body.
    case clientSecretPost(clientID: String, secret: String)
    /// `client_secret_jwt`: an HS256 assertion keyed with the secret (RFC 7523).
    case clientSecretJWT(clientID: String, secret: String)
    /// `private_key_jwt`: an assertion signed with the client's private key (RFC 7523): `iss` = `sub`
    /// = client id, the audience rule's `aud`, a fresh `jti`, `iat` the whole second of the clock
    /// minus one (as in every JWT the client signs), `exp` = `iat` + 60 s.
    case privateKeyJWT(clientID: String, key: JWK, algorithm: JWSAlgorithm)
    /// `none`: a public client; only `client_id` is sent.
    case none(clientID: String)
    /// `tls_client_auth` (RFC 8705 §2.1): the client proves itself with a CA-issued certificate in the
    /// TLS handshake; only `client_id` is sent in the body, never a secret. The transport must present
    /// the certificate (e.g. `LibSSLTransport` with a client identity); the client then calls the
    /// provider's `mtls_endpoint_aliases` where it publishes them.
    case tlsClientAuth(clientID: String)
    /// `self_signed_tls_client_auth` (RFC 8705 §2.2): as ``tlsClientAuth(clientID:)``, with a self-signed
    /// certificate the provider knows from the client's registered keys.
    case selfSignedTLSClientAuth(clientID: String)
    /// Sign in with Apple: `client_secret_post` whose secret is the ES256 JWT ``AppleClientSecret`` makes,
    /// caches and renews before it expires.
    case appleClientSecret(AppleClientSecret)

    /// The client id.
    public var clientID: String {
        switch self {
        case .clientSecretBasic(let id, _), .clientSecretPost(let id, _), .clientSecretJWT(let id, _), .privateKeyJWT(let id, _, _),
            .none(let id), .tlsClientAuth(let id), .selfSignedTLSClientAuth(let id):
            return id
        case .appleClientSecret(let secret):
            return secret.clientID
        }
    }

    /// The registered method name, e.g. `client_secret_basic`.
    package var methodName: String {
        switch self {
        case .clientSecretBasic: return "client_secret_basic"
        case .clientSecretPost, .appleClientSecret: return "client_secret_post"
        case .clientSecretJWT: return "client_secret_jwt"
        case .privateKeyJWT: return "private_key_jwt"
        case .none: return "none"
        case .tlsClientAuth: return "tls_client_auth"
        case .selfSignedTLSClientAuth: return "self_signed_tls_client_auth"
        }
    }

    /// Whether the method authenticates the client by its TLS certificate (RFC 8705 §2): then the
    /// client uses the provider's `mtls_endpoint_aliases` (``ProviderMetadata/withMutualTLSEndpointAliases()``).
    package var usesMutualTLS: Bool {
        switch self {
        case .tlsClientAuth, .selfSignedTLSClientAuth: return true
        case .clientSecretBasic, .clientSecretPost, .clientSecretJWT, .privateKeyJWT, .none, .appleClientSecret: return false
        }
    }

    /// e.g. `client_secret_basic(client_id: "app")`.
    public var description: String { "\(methodName)(client_id: \"\(clientID)\")" }
    /// Same as ``description``.
    public var debugDescription: String { description }
    /// The method and client id only: `dump` shows no secret or private key.
    public var customMirror: Mirror {
        Mirror(self, children: ["method": methodName, "clientID": clientID], displayStyle: .enum)
    }

    /// The explicit type of a client authentication JWT (draft-ietf-oauth-rfc7523bis §4, media type
    /// `application/client-authentication+jwt`).
    package static let assertionType = "client-authentication+jwt"

    /// Adds the authentication to a token-endpoint request; `audience` (the assertion's `aud`,
    /// from ``ClientAssertionAudience``) is asked for only by the assertion methods, whose header carries
    /// `typ` ``assertionType`` when `explicitlyTyped`, else `JWT`.
    package func apply(
        to parameters: inout [(name: String, value: String)], headers: inout HeaderFields, now: Date,
        explicitlyTyped: Bool = false, audience: () throws -> String
    ) throws {
        switch self {
        case .clientSecretBasic(let id, let secret):
            let credentials = FormURLEncoding.encode(id) + ":" + FormURLEncoding.encode(secret)
            headers["Authorization"] = "Basic " + Self.base64(Array(credentials.utf8))
        case .clientSecretPost(let id, let secret):
            parameters.append(("client_id", id))
            parameters.append(("client_secret", secret))
        case .clientSecretJWT(let id, let secret):
            try Self.addAssertion(
                to: &parameters, clientID: id, key: JWK(symmetricKey: Array(secret.utf8)), algorithm: .hs256,
                audience: try audience(), typ: explicitlyTyped ? Self.assertionType : "JWT", now: now)
        case .privateKeyJWT(let id, let key, let algorithm):
            try Self.addAssertion(
                to: &parameters, clientID: id, key: key, algorithm: algorithm, audience: try audience(),
                typ: explicitlyTyped ? Self.assertionType : "JWT", now: now)
        case .none(let id), .tlsClientAuth(let id), .selfSignedTLSClientAuth(let id):
            // RFC 8705 §2: the certificate in the handshake authenticates; the body names the client only.
            parameters.append(("client_id", id))
        case .appleClientSecret(let secret):
            parameters.append(("client_id", secret.clientID))
            parameters.append(("client_secret", try secret.secret(now: now)))
        }
    }

    private static func addAssertion(
        to parameters: inout [(name: String, value: String)], clientID: String, key: JWK,
        algorithm: JWSAlgorithm, audience: String, typ: String, now: Date
    ) throws {
        guard let times = AssertionTimes.issuedAndExpiry(now: now, lifetime: 60, rounding: .down) else {
            throw OIDCError(
                .invalidTokenRequest,
                "the client assertion's iat/exp do not fit in a 64-bit NumericDate "
                    + "(the clock reads \(now.timeIntervalSince1970.wholeText) s)")
        }
        let jti: String
        do { jti = Base64URL.encode(try SecureRandom.bytes(16)) } catch {
            throw OIDCError(.randomGenerationFailed, "could not generate a unique jti for the client assertion")
        }
        let claims: JSONObject = [
            "iss": .string(clientID), "sub": .string(clientID), "aud": .string(audience),
            "jti": .string(jti), "iat": .integer(times.issuedAt), "exp": .integer(times.expiresAt),
        ]
        let assertion: String
        do {
            assertion = try JWT.sign(claims, key: key, algorithm: algorithm, header: ["typ": .string(typ)])
        } catch let error as JOSEError {
            throw OIDCError(.invalidTokenRequest, "the client assertion could not be signed", joseError: error)
        }
        parameters.append(("client_id", clientID))
        parameters.append(("client_assertion_type", "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"))
        parameters.append(("client_assertion", assertion))
    }

    /// Standard Base64 with padding (HTTP Basic), from the URL-safe encoder.
    package static func base64(_ bytes: [UInt8]) -> String {
        var text = String(Base64URL.encode(bytes).map { $0 == "-" ? "+" : ($0 == "_" ? "/" : $0) })
        while text.utf8.count % 4 != 0 { text += "=" }
        return text
    }
}
