import JOSE

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// OAuth 2.0 Protected Resource Metadata (RFC 9728 §2): what a resource server publishes at
/// `/.well-known/oauth-protected-resource` (path inserted) so a client can find the authorization servers
/// that issue tokens for it, the scopes it knows and how it accepts tokens.
///
/// The resource-server side builds one and serves ``jsonString``; the client side gets one checked by
/// ``ProtectedResourceDiscovery``. Unknown members are kept in ``additionalFields``. `signed_metadata` is
/// kept as text and never used (RFC 9728 §2.2: its claims would override the plain ones only once verified,
/// and this library does not verify it).
public struct ProtectedResourceMetadata: Sendable, Hashable {
    /// `resource`: the resource identifier (REQUIRED), an https URL without a fragment; compared exactly.
    public var resource: String
    /// `authorization_servers`: issuer identifiers of the authorization servers that issue tokens for this resource.
    public var authorizationServers: [String]
    /// `jwks_uri`: the resource's own JWK Set (for signed responses), if any.
    public var jwksURI: URL?
    /// `scopes_supported`: the scopes used to ask for tokens for this resource.
    public var scopesSupported: [String]?
    /// `bearer_methods_supported`: `header`, `body`, `query` (RFC 6750 §2); an empty list says none is.
    public var bearerMethodsSupported: [String]?
    /// `resource_signing_alg_values_supported`: algorithms the resource signs responses with.
    public var resourceSigningAlgValuesSupported: [String]?
    /// `resource_name`: a human-readable name.
    public var resourceName: String?
    /// `resource_documentation`: a page for developers.
    public var resourceDocumentation: URL?
    /// `resource_policy_uri`.
    public var resourcePolicyURI: URL?
    /// `resource_tos_uri`.
    public var resourceTosURI: URL?
    /// `tls_client_certificate_bound_access_tokens` (RFC 8705).
    public var tlsClientCertificateBoundAccessTokens: Bool?
    /// `authorization_details_types_supported` (RFC 9396).
    public var authorizationDetailsTypesSupported: [String]?
    /// `dpop_signing_alg_values_supported` (RFC 9449): the DPoP proof algorithms accepted.
    public var dpopSigningAlgValuesSupported: [String]?
    /// `dpop_bound_access_tokens_required` (RFC 9449): whether only DPoP-bound tokens are accepted.
    public var dpopBoundAccessTokensRequired: Bool?
    /// `signed_metadata`, as received; not verified and not used.
    public var signedMetadata: String?
    /// Members this type does not know, in document order.
    public var additionalFields: JSONObject

    /// Metadata for `resource` with the authorization servers that issue its tokens; set the rest as needed.
    /// - Parameters:
    ///   - resource: the resource identifier (https URL, or http on loopback, without a fragment).
    ///   - authorizationServers: issuer identifiers.
    public init(resource: String, authorizationServers: [String] = []) {
        self.resource = resource
        self.authorizationServers = authorizationServers
        jwksURI = nil
        scopesSupported = nil
        bearerMethodsSupported = nil
        resourceSigningAlgValuesSupported = nil
        resourceName = nil
        resourceDocumentation = nil
        resourcePolicyURI = nil
        resourceTosURI = nil
        tlsClientCertificateBoundAccessTokens = nil
        authorizationDetailsTypesSupported = nil
        dpopSigningAlgValuesSupported = nil
        dpopBoundAccessTokensRequired = nil
        signedMetadata = nil
        additionalFields = JSONObject()
    }

    /// The registered member names.
    public static let registeredFieldNames: Set<String> = [
        "resource", "authorization_servers", "jwks_uri", "scopes_supported", "bearer_methods_supported",
        "resource_signing_alg_values_supported", "resource_name", "resource_documentation", "resource_policy_uri",
        "resource_tos_uri", "tls_client_certificate_bound_access_tokens", "authorization_details_types_supported",
        "dpop_signing_alg_values_supported", "dpop_bound_access_tokens_required", "signed_metadata",
    ]

    /// Parses a document with the strict JSON parser (duplicate members refused).
    /// - Throws: ``OIDCError`` `.discoveryInvalidDocument` (not a JSON object, or a member of the wrong type, named),
    ///   `.discoveryMissingField` (no `resource`).
    public init(jsonBytes: [UInt8]) throws {
        let object: JSONObject
        do {
            object = try JSONParser.parseObject(jsonBytes, what: "the protected resource metadata")
        } catch let error as JOSEError {
            throw OIDCError(.discoveryInvalidDocument, "the protected resource metadata is not a JSON object", joseError: error)
        }
        guard let resource = object["resource"] else {
            throw OIDCError(.discoveryMissingField, "the protected resource metadata has no \"resource\"")
        }
        let reader = MemberReader(object: object)
        self.init(resource: try reader.string(resource, "resource"))
        authorizationServers = try reader.strings("authorization_servers") ?? []
        jwksURI = try reader.url("jwks_uri")
        scopesSupported = try reader.strings("scopes_supported")
        bearerMethodsSupported = try reader.strings("bearer_methods_supported")
        resourceSigningAlgValuesSupported = try reader.strings("resource_signing_alg_values_supported")
        resourceName = try object["resource_name"].map { try reader.string($0, "resource_name") }
        resourceDocumentation = try reader.url("resource_documentation")
        resourcePolicyURI = try reader.url("resource_policy_uri")
        resourceTosURI = try reader.url("resource_tos_uri")
        tlsClientCertificateBoundAccessTokens = try reader.bool("tls_client_certificate_bound_access_tokens")
        authorizationDetailsTypesSupported = try reader.strings("authorization_details_types_supported")
        dpopSigningAlgValuesSupported = try reader.strings("dpop_signing_alg_values_supported")
        dpopBoundAccessTokensRequired = try reader.bool("dpop_bound_access_tokens_required")
        signedMetadata = try object["signed_metadata"].map { try reader.string($0, "signed_metadata") }
        for member in object where !Self.registeredFieldNames.contains(member.name) {
            additionalFields[member.name] = member.value
        }
    }

    /// The document as a JSON object: the registered members that are set, then ``additionalFields``.
    public var jsonObject: JSONObject {
        var object = JSONObject()
        object["resource"] = .string(resource)
        if !authorizationServers.isEmpty { object["authorization_servers"] = .array(authorizationServers.map(JSONValue.string)) }
        func strings(_ name: String, _ value: [String]?) { if let value { object[name] = .array(value.map(JSONValue.string)) } }
        func text(_ name: String, _ value: String?) { if let value { object[name] = .string(value) } }
        func flag(_ name: String, _ value: Bool?) { if let value { object[name] = .bool(value) } }
        text("jwks_uri", jwksURI?.absoluteString)
        strings("scopes_supported", scopesSupported)
        strings("bearer_methods_supported", bearerMethodsSupported)
        strings("resource_signing_alg_values_supported", resourceSigningAlgValuesSupported)
        text("resource_name", resourceName)
        text("resource_documentation", resourceDocumentation?.absoluteString)
        text("resource_policy_uri", resourcePolicyURI?.absoluteString)
        text("resource_tos_uri", resourceTosURI?.absoluteString)
        flag("tls_client_certificate_bound_access_tokens", tlsClientCertificateBoundAccessTokens)
        strings("authorization_details_types_supported", authorizationDetailsTypesSupported)
        strings("dpop_signing_alg_values_supported", dpopSigningAlgValuesSupported)
        flag("dpop_bound_access_tokens_required", dpopBoundAccessTokensRequired)
        text("signed_metadata", signedMetadata)
        for member in additionalFields where !Self.registeredFieldNames.contains(member.name) { object[member.name] = member.value }
        return object
    }

    /// The document as compact JSON, to serve with `Content-Type: application/json`.
    public var jsonString: String { jsonObject.jsonString() }

    /// Typed reads of members, each error naming the member.
    private struct MemberReader {
        package let object: JSONObject

        package func wrongType(_ name: String, _ expected: String) -> OIDCError {
            OIDCError(.discoveryInvalidDocument, "the protected resource metadata's \"\(name)\" is not \(expected)")
        }

        package func string(_ value: JSONValue, _ name: String) throws -> String {
            guard let text = value.stringValue else { throw wrongType(name, "a string") }
            return text
        }

        package func strings(_ name: String) throws -> [String]? {
            guard let value = object[name] else { return nil }
            guard let array = value.arrayValue else { throw wrongType(name, "an array of strings") }
            return try array.map { element in
                guard let text = element.stringValue else { throw wrongType(name, "an array of strings") }
                return text
            }
        }

        package func url(_ name: String) throws -> URL? {
            guard let value = object[name] else { return nil }
            guard let url = URL(string: try string(value, name)), url.scheme != nil else { throw wrongType(name, "an absolute URL") }
            return url
        }

        package func bool(_ name: String) throws -> Bool? {
            guard let value = object[name] else { return nil }
            guard let flag = value.boolValue else { throw wrongType(name, "a boolean") }
            return flag
        }
    }
}
