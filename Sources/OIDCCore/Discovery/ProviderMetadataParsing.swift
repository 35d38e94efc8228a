import JOSE

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension ProviderMetadata {
    /// Parses a metadata document with the strict JSON parser (duplicate members
    /// refused), keeping unknown members in document order.
    /// - Throws: ``OIDCError`` `.discoveryInvalidDocument` (not a JSON object, or a
    ///   registered field of the wrong type, named in the reason) or
    ///   `.discoveryMissingField` (no `issuer`).
    public init(jsonBytes: [UInt8]) throws {
        let object: JSONObject
        do {
            object = try JSONParser.parseObject(jsonBytes, what: "the provider metadata")
        } catch let error as JOSEError {
            throw OIDCError(.discoveryInvalidDocument, "the provider metadata is not a JSON object", joseError: error)
        }
        guard object["issuer"] != nil else {
            throw OIDCError(.discoveryMissingField, "the provider metadata has no \"issuer\"")
        }
        do {
            self = try JSONDecoder().decode(ProviderMetadata.self, from: Data(jsonBytes))
        } catch let error as DecodingError {
            let field = error.fieldName.map { " (field \"\($0)\")" } ?? ""
            throw OIDCError(.discoveryInvalidDocument, "a provider metadata field has the wrong type\(field)")
        }
        var extra = JSONObject()
        for member in object where !Self.registeredFieldNames.contains(member.name) {
            extra[member.name] = member.value
        }
        additionalFields = extra
    }

    /// The names of the fields OpenID Connect Discovery §3 requires that this document lacks.
    package var missingRequiredOpenIDFields: [String] {
        var missing: [String] = []
        if authorizationEndpoint == nil { missing.append("authorization_endpoint") }
        if jwksURI == nil { missing.append("jwks_uri") }
        if responseTypesSupported == nil { missing.append("response_types_supported") }
        if subjectTypesSupported == nil { missing.append("subject_types_supported") }
        if idTokenSigningAlgValuesSupported == nil { missing.append("id_token_signing_alg_values_supported") }
        return missing
    }

    /// Whether a client must refuse an authorization response without RFC 9207 `iss`: this provider
    /// advertises `authorization_response_iss_parameter_supported`, or the client requires it itself.
    /// The one rule for ``OIDCClient``'s pending logins and ``FAPI2Configuration``.
    package func requiresIssuerParameter(clientRequires: Bool) -> Bool {
        clientRequires || authorizationResponseIssParameterSupported == true
    }

    /// The ID Token signing algorithms the provider advertises that this library
    /// implements (`none` and unknown names dropped); `nil` when not advertised.
    package var idTokenSigningAlgorithms: Set<JWSAlgorithm>? {
        idTokenSigningAlgValuesSupported.map { Set($0.compactMap(JWSAlgorithm.init(rawValue:))) }
    }
}

extension DecodingError {
    /// The first member of the coding path, for naming a field in an error.
    package var fieldName: String? {
        switch self {
        case .typeMismatch(_, let context), .valueNotFound(_, let context), .dataCorrupted(let context):
            return context.codingPath.first?.stringValue
        case .keyNotFound(let key, let context):
            return context.codingPath.first?.stringValue ?? key.stringValue
        @unknown default:
            return nil
        }
    }
}
