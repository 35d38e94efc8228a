import JOSE

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The metadata of a client to register (RFC 7591 §2, OpenID Connect Dynamic Client Registration
/// 1.0 §2), typed, plus any other member in ``extra``.
///
/// ``jsonObject()`` is what is sent: `jwks` carries the public members of the keys only, whatever
/// keys were given, so a private key never leaves the client. The same type reads the metadata the
/// provider answers with (``ClientRegistration/metadata``).
public struct ClientMetadata: Sendable {
    /// `redirect_uris`.
    public var redirectURIs: [URL]
    /// `grant_types` (e.g. `authorization_code`, `refresh_token`); `nil`: the provider's default.
    public var grantTypes: [String]?
    /// `response_types` (e.g. `code`); `nil`: the provider's default (`code`).
    public var responseTypes: [String]?
    /// `token_endpoint_auth_method` (`client_secret_basic`, `client_secret_post`, `client_secret_jwt`,
    /// `private_key_jwt`, `none`, ...); `nil`: the provider's default (`client_secret_basic`).
    public var tokenEndpointAuthMethod: String?
    /// `token_endpoint_auth_signing_alg`.
    public var tokenEndpointAuthSigningAlgorithm: String?
    /// `jwks`: the client's keys; only their public members are ever sent.
    public var jwks: [JWK]?
    /// `jwks_uri`.
    public var jwksURI: URL?
    /// `id_token_signed_response_alg`.
    public var idTokenSignedResponseAlgorithm: String?
    /// `id_token_encrypted_response_alg`.
    public var idTokenEncryptedResponseAlgorithm: String?
    /// `id_token_encrypted_response_enc`.
    public var idTokenEncryptedResponseEncryption: String?
    /// `userinfo_signed_response_alg`.
    public var userInfoSignedResponseAlgorithm: String?
    /// `userinfo_encrypted_response_alg`.
    public var userInfoEncryptedResponseAlgorithm: String?
    /// `userinfo_encrypted_response_enc`.
    public var userInfoEncryptedResponseEncryption: String?
    /// `request_object_signing_alg`.
    public var requestObjectSigningAlgorithm: String?
    /// `request_object_encryption_alg`.
    public var requestObjectEncryptionAlgorithm: String?
    /// `request_object_encryption_enc`.
    public var requestObjectEncryptionEncryption: String?
    /// `request_uris`.
    public var requestURIs: [URL]?
    /// `backchannel_logout_uri`.
    public var backchannelLogoutURI: URL?
    /// `backchannel_logout_session_required`.
    public var backchannelLogoutSessionRequired: Bool?
    /// `post_logout_redirect_uris`.
    public var postLogoutRedirectURIs: [URL]?
    /// `software_statement` (a JWT, sent as given).
    public var softwareStatement: String?
    /// `contacts` (e-mail addresses).
    public var contacts: [String]?
    /// `client_name`.
    public var clientName: String?
    /// `application_type` (`web` or `native`).
    public var applicationType: String?
    /// `scope`.
    public var scope: String?
    /// Any other member, sent as given; a member named here that is also a typed property above is
    /// overridden by the typed value.
    public var extra: JSONObject

    /// Metadata with `redirectURIs` and every other member at the provider's default.
    /// - Parameters:
    ///   - redirectURIs: `redirect_uris`.
    ///   - extra: other members, sent as given.
    public init(redirectURIs: [URL], extra: JSONObject = JSONObject()) {
        self.redirectURIs = redirectURIs
        self.extra = extra
    }

    /// The JSON object sent to the provider: ``extra`` then the typed members; `jwks` with public members only.
    public func jsonObject() -> JSONObject {
        var object = extra
        func put(_ name: String, _ value: String?) { if let value { object[name] = .string(value) } }
        func put(_ name: String, _ values: [String]?) { if let values { object[name] = .array(values.map { .string($0) }) } }
        object["redirect_uris"] = .array(redirectURIs.map { .string($0.absoluteString) })
        put("grant_types", grantTypes)
        put("response_types", responseTypes)
        put("token_endpoint_auth_method", tokenEndpointAuthMethod)
        put("token_endpoint_auth_signing_alg", tokenEndpointAuthSigningAlgorithm)
        if let jwks { object["jwks"] = .object(JSONObject([("keys", .array(jwks.map { .object($0.publicJWK) }))])) }
        put("jwks_uri", jwksURI?.absoluteString)
        put("id_token_signed_response_alg", idTokenSignedResponseAlgorithm)
        put("id_token_encrypted_response_alg", idTokenEncryptedResponseAlgorithm)
        put("id_token_encrypted_response_enc", idTokenEncryptedResponseEncryption)
        put("userinfo_signed_response_alg", userInfoSignedResponseAlgorithm)
        put("userinfo_encrypted_response_alg", userInfoEncryptedResponseAlgorithm)
        put("userinfo_encrypted_response_enc", userInfoEncryptedResponseEncryption)
        put("request_object_signing_alg", requestObjectSigningAlgorithm)
        put("request_object_encryption_alg", requestObjectEncryptionAlgorithm)
        put("request_object_encryption_enc", requestObjectEncryptionEncryption)
        put("request_uris", requestURIs?.map(\.absoluteString))
        put("backchannel_logout_uri", backchannelLogoutURI?.absoluteString)
        if let backchannelLogoutSessionRequired { object["backchannel_logout_session_required"] = .bool(backchannelLogoutSessionRequired) }
        put("post_logout_redirect_uris", postLogoutRedirectURIs?.map(\.absoluteString))
        put("software_statement", softwareStatement)
        put("contacts", contacts)
        put("client_name", clientName)
        put("application_type", applicationType)
        put("scope", scope)
        return object
    }

    /// The members this type reads into typed properties.
    static let typedMembers: Set<String> = [
        "redirect_uris", "grant_types", "response_types", "token_endpoint_auth_method", "token_endpoint_auth_signing_alg",
        "jwks", "jwks_uri", "id_token_signed_response_alg", "id_token_encrypted_response_alg", "id_token_encrypted_response_enc",
        "userinfo_signed_response_alg", "userinfo_encrypted_response_alg", "userinfo_encrypted_response_enc",
        "request_object_signing_alg", "request_object_encryption_alg", "request_object_encryption_enc", "request_uris",
        "backchannel_logout_uri", "backchannel_logout_session_required", "post_logout_redirect_uris", "software_statement",
        "contacts", "client_name", "application_type", "scope",
    ]

    /// Reads metadata from a provider's answer; members of the wrong type are refused (a one-element array of a
    /// string stands for the string: glewlwyd answers so).
    /// `except` names members that are not metadata (the registration's own: `client_id`, secrets, ...).
    /// - Throws: ``OIDCError`` `.registrationInvalidResponse` naming the member.
    init(answer object: JSONObject, except: Set<String>) throws {
        func fail(_ name: String, _ expected: String) -> OIDCError {
            OIDCError(.registrationInvalidResponse, "the registration answer's \(name) is not \(expected)", endpoint: .registration)
        }
        func string(_ name: String) throws -> String? {
            guard let value = object[name], !value.isNull else { return nil }
            // glewlwyd's RFC 7592 read answers single values as one-element arrays (e.g. token_endpoint_auth_method).
            if let array = value.arrayValue, array.count == 1, let text = array[0].stringValue { return text }
            guard let text = value.stringValue else { throw fail(name, "a string") }
            return text
        }
        func strings(_ name: String) throws -> [String]? {
            guard let value = object[name], !value.isNull else { return nil }
            guard let array = value.arrayValue else { throw fail(name, "an array of strings") }
            return try array.map {
                guard let text = $0.stringValue else { throw fail(name, "an array of strings") }; return text
            }
        }
        func url(_ name: String) throws -> URL? {
            guard let text = try string(name) else { return nil }
            guard let url = URL(string: text) else { throw fail(name, "a URL") }
            return url
        }
        func urls(_ name: String) throws -> [URL]? {
            try strings(name).map {
                try $0.map {
                    guard let url = URL(string: $0) else { throw fail(name, "an array of URLs") }; return url
                }
            }
        }
        self.init(redirectURIs: try urls("redirect_uris") ?? [])
        grantTypes = try strings("grant_types")
        responseTypes = try strings("response_types")
        tokenEndpointAuthMethod = try string("token_endpoint_auth_method")
        tokenEndpointAuthSigningAlgorithm = try string("token_endpoint_auth_signing_alg")
        if let value = object["jwks"], !value.isNull {
            guard let jwksObject = value.objectValue else { throw fail("jwks", "a JWK Set") }
            do {
                jwks = try JWKSet(json: jwksObject.jsonString()).keys.map(\.publicKey)
            } catch {
                throw fail("jwks", "a JWK Set")
            }
        }
        jwksURI = try url("jwks_uri")
        idTokenSignedResponseAlgorithm = try string("id_token_signed_response_alg")
        idTokenEncryptedResponseAlgorithm = try string("id_token_encrypted_response_alg")
        idTokenEncryptedResponseEncryption = try string("id_token_encrypted_response_enc")
        userInfoSignedResponseAlgorithm = try string("userinfo_signed_response_alg")
        userInfoEncryptedResponseAlgorithm = try string("userinfo_encrypted_response_alg")
        userInfoEncryptedResponseEncryption = try string("userinfo_encrypted_response_enc")
        requestObjectSigningAlgorithm = try string("request_object_signing_alg")
        requestObjectEncryptionAlgorithm = try string("request_object_encryption_alg")
        requestObjectEncryptionEncryption = try string("request_object_encryption_enc")
        requestURIs = try urls("request_uris")
        backchannelLogoutURI = try url("backchannel_logout_uri")
        if let value = object["backchannel_logout_session_required"], !value.isNull {
            guard let flag = value.boolValue else { throw fail("backchannel_logout_session_required", "a boolean") }
            backchannelLogoutSessionRequired = flag
        }
        postLogoutRedirectURIs = try urls("post_logout_redirect_uris")
        softwareStatement = try string("software_statement")
        contacts = try strings("contacts")
        clientName = try string("client_name")
        applicationType = try string("application_type")
        scope = try string("scope")
        var extra = JSONObject()
        for member in object where !Self.typedMembers.contains(member.name) && !except.contains(member.name) {
            extra[member.name] = member.value
        }
        self.extra = extra
    }
}
