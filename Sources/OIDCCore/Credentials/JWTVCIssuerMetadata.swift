import JOSE

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Where a JWT VC issuer publishes the keys its SD-JWT VCs are signed with (draft-ietf-oauth-sd-jwt-vc, JWT VC
/// Issuer Metadata): `<origin>/.well-known/jwt-vc-issuer<path>` holding `issuer` and either `jwks` or `jwks_uri`.
///
/// The issuer is the credential's `iss`, chosen by whoever issued or presents the credential, so both fetches go
/// through the ``RemoteFetchPolicy`` (default: public hosts on port 443; no internal address), never follow
/// redirects, are bounded in size and time, and quote no body in their errors. The document's `issuer` must equal
/// the credential's exactly; a document with both `jwks` and `jwks_uri`, or neither, is refused.
public struct JWTVCIssuerMetadata: Sendable {
    /// `issuer`: equal to the credential's `iss`.
    public let issuer: String
    /// `jwks_uri`, when the keys are published by reference.
    public let jwksURI: URL?
    /// `jwks`, when the keys are published by value.
    public let jwks: JWKSet?

    /// The metadata URL of `issuer`: `/.well-known/jwt-vc-issuer` inserted between the host and the path.
    /// - Throws: ``OIDCError`` `.invalidIssuerURL`, `.insecureURL`.
    public static func metadataURL(forIssuer issuer: String) throws -> URL {
        try WellKnownURL.url(for: issuer, suffix: "jwt-vc-issuer", what: "the credential issuer")
    }

    /// Fetches the metadata of `issuer`, then its verification keys (from `jwks`, or fetched from `jwks_uri`;
    /// keys that cannot verify, `use: enc` or symmetric ones, left out).
    /// - Throws: ``OIDCError`` `.vcIssuerHostRefused` (the fetch policy, for the metadata or the `jwks_uri`),
    ///   `.vcIssuerMetadataInvalid` (not JSON, `issuer` missing or different, both or neither of `jwks` and
    ///   `jwks_uri`), `.discoveryTransportFailed`, `.discoveryHTTPStatus`; for `jwks_uri`, the JWK Set codes.
    public static func keys(
        forIssuer issuer: String, transport: any HTTPTransport, fetchPolicy: RemoteFetchPolicy = .publicHostsOnly,
        observer: (any OIDCObserver)? = nil
    ) async throws -> JWKSet {
        let metadata = try await fetch(issuer: issuer, transport: transport, fetchPolicy: fetchPolicy, observer: observer)
        if let jwks = metadata.jwks { return JWKSetCache.verificationKeys(of: jwks) }
        guard let jwksURI = metadata.jwksURI else {
            throw OIDCError(.vcIssuerMetadataInvalid, "the JWT VC issuer metadata has neither jwks nor jwks_uri")
        }
        var diagnostic: String?
        try await fetchPolicy.check(jwksURI, code: .vcIssuerHostRefused, what: "the JWT VC issuer's jwks_uri host", endpoint: .jwks, diagnostic: &diagnostic)
        return try await JWKSetCache(jwksURI: jwksURI, issuer: issuer, transport: transport, observer: observer).keys()
    }

    /// Fetches and checks the metadata of `issuer`.
    /// - Throws: as ``keys(forIssuer:transport:fetchPolicy:observer:)``.
    public static func fetch(
        issuer: String, transport: any HTTPTransport, fetchPolicy: RemoteFetchPolicy = .publicHostsOnly,
        observer: (any OIDCObserver)? = nil
    ) async throws -> JWTVCIssuerMetadata {
        let url = try metadataURL(forIssuer: issuer)
        var diagnostic: String?
        return try await observer.observe(.discovery, origin: OIDCEvent.origin(of: url), detail: diagnostic) {
            try await fetchPolicy.check(
                url, code: .vcIssuerHostRefused, what: "the JWT VC issuer metadata host", endpoint: .jwtVCIssuerMetadata,
                diagnostic: &diagnostic)
            var fetch = EndpointFetch(
                endpoint: .jwtVCIssuerMetadata, issuer: nil, transportFailure: .discoveryTransportFailed,
                invalidBody: .vcIssuerMetadataInvalid, statusCode: .discoveryHTTPStatus)
            fetch.quotesBody = false
            let (object, _) = try await fetch.jsonObject(TransportRequest(url: url, headers: ["Accept": "application/json"]), via: transport)
            let metadata = try JWTVCIssuerMetadata(object: object)
            guard metadata.issuer == issuer else {
                throw OIDCError(
                    .vcIssuerMetadataInvalid, "the JWT VC issuer metadata names another issuer than the credential's iss",
                    endpoint: .jwtVCIssuerMetadata)
            }
            return metadata
        }
    }

    /// Reads a metadata document.
    /// - Throws: ``OIDCError`` `.vcIssuerMetadataInvalid`.
    package init(object: JSONObject) throws {
        guard let issuer = object["issuer"]?.stringValue, !issuer.isEmpty else {
            throw OIDCError(.vcIssuerMetadataInvalid, "the JWT VC issuer metadata has no issuer", endpoint: .jwtVCIssuerMetadata)
        }
        let jwksValue = object["jwks"]
        let uriValue = object["jwks_uri"]
        guard (jwksValue == nil) != (uriValue == nil) else {
            throw OIDCError(
                .vcIssuerMetadataInvalid, "the JWT VC issuer metadata must have exactly one of jwks and jwks_uri",
                endpoint: .jwtVCIssuerMetadata)
        }
        var jwks: JWKSet?
        if let jwksValue {
            guard jwksValue.objectValue != nil else {
                throw OIDCError(.vcIssuerMetadataInvalid, "the JWT VC issuer metadata's jwks is not an object", endpoint: .jwtVCIssuerMetadata)
            }
            do { jwks = try JWKSet(json: jwksValue.jsonString()) } catch let error as JOSEError {
                throw OIDCError(
                    .vcIssuerMetadataInvalid, "the JWT VC issuer metadata's jwks is not a JWK Set", joseError: error, endpoint: .jwtVCIssuerMetadata)
            }
        }
        var jwksURI: URL?
        if let uriValue {
            guard let text = uriValue.stringValue else {
                throw OIDCError(.vcIssuerMetadataInvalid, "the JWT VC issuer metadata's jwks_uri is not a string", endpoint: .jwtVCIssuerMetadata)
            }
            jwksURI = try SecureURLPolicy.check(text, what: "the JWT VC issuer's jwks_uri")
        }
        self.issuer = issuer
        self.jwks = jwks
        self.jwksURI = jwksURI
    }
}

extension ProviderEndpoint {
    /// A JWT VC issuer's metadata (`/.well-known/jwt-vc-issuer`, draft-ietf-oauth-sd-jwt-vc).
    public static let jwtVCIssuerMetadata = ProviderEndpoint(rawValue: "jwt-vc-issuer")
}
