import JOSE

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A provider's answer to a dynamic registration or a client management read or update
/// (RFC 7591 §3.2.1, RFC 7592 §3): the client's identifier and secrets, and its metadata as the
/// provider registered it.
///
/// `client_secret` and `registration_access_token` are secrets: ``description``, `dump` and
/// ``redactedAnswer`` show them as `<redacted>`; only ``clientSecret``, ``registrationAccessToken``
/// and ``answer`` hold them.
public struct ClientRegistration: Sendable, CustomStringConvertible, CustomReflectable {
    /// `client_id`.
    public let clientID: String
    /// `client_secret`, when the provider issued one (a secret: never logged).
    public let clientSecret: String?
    /// `client_id_issued_at`.
    public let clientIDIssuedAt: Date?
    /// `client_secret_expires_at`; `nil` when absent or `0` (does not expire).
    public let clientSecretExpiresAt: Date?
    /// `registration_access_token` (RFC 7592; a secret: never logged).
    public let registrationAccessToken: String?
    /// `registration_client_uri` (RFC 7592), checked like every endpoint of the provider (https unless loopback).
    public let registrationClientURI: URL?
    /// The client's metadata as the provider registered it (it may differ from what was asked).
    public let metadata: ClientMetadata
    /// The issuer the client was registered at, when known (the URL rules of its endpoints).
    public let issuer: String?
    /// The whole answer, secrets included: keep it server-side.
    public let answer: JSONObject

    /// The members of the answer that are secrets.
    package static let secretMembers: Set<String> = ["client_secret", "registration_access_token"]
    /// The members that describe the registration rather than the client's metadata.
    static let registrationMembers: Set<String> = [
        "client_id", "client_secret", "client_id_issued_at", "client_secret_expires_at", "registration_access_token",
        "registration_client_uri",
    ]

    /// Reads a provider's answer.
    /// - Parameters:
    ///   - answer: the JSON object the provider returned.
    ///   - issuer: the provider's issuer (for the URL rule of `registration_client_uri`), when known.
    /// - Throws: ``/OIDCCore/OIDCError`` `.registrationInvalidResponse` (no `client_id`, a member of the wrong type),
    ///   `.insecureURL` for an http `registration_client_uri` off loopback.
    public init(answer: JSONObject, issuer: String?) throws {
        func fail(_ reason: String) -> OIDCError { OIDCError(.registrationInvalidResponse, "the registration answer's \(reason)", endpoint: .registration) }
        func optionalString(_ name: String) throws -> String? {
            guard let value = answer[name], !value.isNull else { return nil }
            guard let text = value.stringValue else { throw fail("\(name) is not a string") }
            return text
        }
        func optionalDate(_ name: String) throws -> Date? {
            guard let value = answer[name], !value.isNull else { return nil }
            guard let seconds = value.int64Value, seconds >= 0, seconds < 253_402_300_800 else { throw fail("\(name) is not a time in seconds") }
            return seconds == 0 ? nil : Date(timeIntervalSince1970: TimeInterval(seconds))
        }
        guard let clientID = try optionalString("client_id"), !clientID.isEmpty else { throw fail("client_id is missing") }
        self.clientID = clientID
        clientSecret = try optionalString("client_secret")
        clientIDIssuedAt = try optionalDate("client_id_issued_at")
        clientSecretExpiresAt = try optionalDate("client_secret_expires_at")
        registrationAccessToken = try optionalString("registration_access_token")
        if let text = try optionalString("registration_client_uri") {
            guard let url = URL(string: text) else { throw fail("registration_client_uri is not a URL") }
            try SecureURLPolicy.checkEndpoint(url, .registrationClient, issuer: issuer)
            registrationClientURI = url
        } else {
            registrationClientURI = nil
        }
        metadata = try ClientMetadata(answer: answer, except: Self.registrationMembers)
        self.issuer = issuer
        self.answer = answer
    }

    /// The answer with `client_secret` and `registration_access_token` replaced by `"<redacted>"`.
    public var redactedAnswer: JSONObject {
        var object = answer
        for name in Self.secretMembers where object[name] != nil { object[name] = .string("<redacted>") }
        return object
    }

    /// How the client authenticates at the token endpoint, from the registered `token_endpoint_auth_method`
    /// (default `client_secret_basic`, RFC 7591 §2) and the issued secret; with neither a method nor a secret in
    /// the answer, a public client (`none`, which logs in with PKCE).
    /// - Parameters:
    ///   - privateKey: the client's signing key, for `private_key_jwt`.
    ///   - algorithm: its algorithm for `private_key_jwt`; default: `token_endpoint_auth_signing_alg` when registered.
    /// - Throws: ``/OIDCCore/OIDCError`` `.invalidClientMetadata` when the method needs a secret the answer lacks, a key that
    ///   was not given, or is not one this library speaks (e.g. `tls_client_auth`).
    public func authentication(privateKey: JWK? = nil, algorithm: JWSAlgorithm? = nil) throws -> ClientAuthentication {
        // RFC 7591 §2: an omitted method means client_secret_basic; a provider that registered the client
        // without saying so and issued no secret registered a public client.
        if metadata.tokenEndpointAuthMethod == nil, clientSecret == nil { return .none(clientID: clientID) }
        let method = metadata.tokenEndpointAuthMethod ?? "client_secret_basic"
        func secret() throws -> String {
            guard let clientSecret, !clientSecret.isEmpty else {
                throw OIDCError(.invalidClientMetadata, "the registration uses \(method) but the provider issued no client_secret")
            }
            return clientSecret
        }
        switch method {
        case "client_secret_basic": return .clientSecretBasic(clientID: clientID, secret: try secret())
        case "client_secret_post": return .clientSecretPost(clientID: clientID, secret: try secret())
        case "client_secret_jwt": return .clientSecretJWT(clientID: clientID, secret: try secret())
        case "none": return .none(clientID: clientID)
        case "private_key_jwt":
            guard let privateKey else {
                throw OIDCError(.invalidClientMetadata, "the registration uses private_key_jwt: give the client's private key")
            }
            let name = algorithm?.rawValue ?? metadata.tokenEndpointAuthSigningAlgorithm ?? privateKey.algorithm ?? ""
            guard let chosen = algorithm ?? JWSAlgorithm(rawValue: name) else {
                throw OIDCError(.invalidClientMetadata, "the registration uses private_key_jwt: name the signing algorithm")
            }
            return .privateKeyJWT(clientID: clientID, key: privateKey, algorithm: chosen)
        default:
            throw OIDCError(.invalidClientMetadata, "token_endpoint_auth_method \(method) is not one this client speaks")
        }
    }

    /// `ClientRegistration(client_id: ..., client_secret: <redacted>, registration_access_token: <redacted>)`.
    public var description: String {
        "ClientRegistration(client_id: \(clientID), client_secret: \(clientSecret == nil ? "none" : "<redacted>"), "
            + "registration_access_token: \(registrationAccessToken == nil ? "none" : "<redacted>"))"
    }

    /// The client id, the registration client URI and the metadata: no secret.
    public var customMirror: Mirror {
        Mirror(
            self,
            children: [
                "clientID": clientID, "registrationClientURI": registrationClientURI as Any,
                "clientSecret": clientSecret == nil ? "none" : "<redacted>",
                "registrationAccessToken": registrationAccessToken == nil ? "none" : "<redacted>",
            ])
    }
}
