import JOSE

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A transmitter's configuration (SSF 1.0 §7.1), read from its `/.well-known/ssf-configuration`.
///
/// Every endpoint is an absolute `https` URL, or `http` on a loopback host for a loopback transmitter: checked when
/// read and again on every call, through the same URL policy as OpenID discovery.
public struct TransmitterMetadata: Sendable {
    /// `issuer`: equal to the transmitter identifier it was read for.
    public let issuer: String
    /// `jwks_uri`, where the keys that sign its SETs are.
    public let jwksURI: URL?
    /// `delivery_methods_supported`, e.g. `urn:ietf:rfc:8935` (push) and `urn:ietf:rfc:8936` (poll).
    public let deliveryMethodsSupported: [String]
    /// `configuration_endpoint`: stream management (SSF 1.0 §8.1.1).
    public let configurationEndpoint: URL?
    /// `status_endpoint` (§8.1.2).
    public let statusEndpoint: URL?
    /// `add_subject_endpoint` (§8.1.3.2).
    public let addSubjectEndpoint: URL?
    /// `remove_subject_endpoint` (§8.1.3.3).
    public let removeSubjectEndpoint: URL?
    /// `verification_endpoint` (§8.1.4).
    public let verificationEndpoint: URL?
    /// Every member as sent.
    public let json: JSONObject

    /// Reads a configuration document.
    /// - Throws: ``/OIDCCore/OIDCError`` `.invalidTransmitterAnswer` for a document that is not an object or a member of
    ///   the wrong type; `.insecureURL` for an endpoint that is not https (http only for a loopback transmitter).
    public init(json: JSONObject) throws {
        func invalid(_ reason: String) -> OIDCError { OIDCError(.invalidTransmitterAnswer, "the transmitter configuration \(reason)") }
        guard let issuer = json["issuer"]?.stringValue, !issuer.isEmpty else { throw invalid("has no \"issuer\"") }
        func endpoint(_ name: String) throws -> URL? {
            guard let value = json[name] else { return nil }
            guard let text = value.stringValue, let url = URL(string: text), url.scheme != nil, url.host != nil else {
                throw invalid("has a \"\(name)\" that is not an absolute URL")
            }
            try SecureURLPolicy.checkEndpoint(url, ProviderEndpoint(rawValue: name), issuer: issuer)
            return url
        }
        self.issuer = issuer
        jwksURI = try endpoint("jwks_uri")
        configurationEndpoint = try endpoint("configuration_endpoint")
        statusEndpoint = try endpoint("status_endpoint")
        addSubjectEndpoint = try endpoint("add_subject_endpoint")
        removeSubjectEndpoint = try endpoint("remove_subject_endpoint")
        verificationEndpoint = try endpoint("verification_endpoint")
        if let methods = json["delivery_methods_supported"] {
            guard let list = methods.arrayValue?.compactMap(\.stringValue), list.count == methods.arrayValue?.count else {
                throw invalid("has a \"delivery_methods_supported\" that is not an array of strings")
            }
            deliveryMethodsSupported = list
        } else {
            deliveryMethodsSupported = []
        }
        self.json = json
    }

    /// Reads `transmitter`'s configuration from its well-known URL (SSF 1.0 §7.2: `/.well-known/ssf-configuration`
    /// between host and path), through the fetch rules of OpenID discovery: https (http only on loopback), no
    /// redirects, a bounded body; its `issuer` must equal `transmitter` exactly.
    /// - Throws: ``/OIDCCore/OIDCError`` `.transmitterIssuerMismatch`, `.invalidTransmitterAnswer`, `.insecureURL`,
    ///   `.transmitterUnavailable` (unreachable, 5xx), `.transmitterRefused` (another status).
    public static func discover(_ transmitter: String, transport: any HTTPTransport) async throws -> TransmitterMetadata {
        if transmitter.contains("?") || transmitter.contains("#") {
            throw OIDCError(.invalidIssuerURL, "a transmitter identifier has no query or fragment (SSF 1.0 §7.2)")
        }
        let url = try WellKnownURL.url(for: transmitter, suffix: "ssf-configuration", what: "the transmitter")
        let fetch = TransmitterCall.fetch(.ssfConfiguration, issuer: transmitter)
        let (object, _) = try await fetch.jsonObject(TransportRequest(url: url, headers: ["Accept": "application/json"]), via: transport)
        let metadata = try TransmitterMetadata(json: object)
        guard metadata.issuer == transmitter else {
            throw OIDCError(.transmitterIssuerMismatch, "the transmitter configuration's issuer is not exactly the transmitter identifier it was read for")
        }
        return metadata
    }
}

extension ProviderEndpoint {
    /// The transmitter's `/.well-known/ssf-configuration`.
    static let ssfConfiguration = ProviderEndpoint(rawValue: "ssf-configuration")
    /// A stream's poll `endpoint_url` (RFC 8936).
    static let pollEndpoint = ProviderEndpoint(rawValue: "poll endpoint_url")
}

/// The one way this module calls a transmitter: the endpoint policy and status rules of ``/OIDCCore/EndpointFetch``.
enum TransmitterCall {
    /// A fetch of `endpoint` accepting 2xx; 5xx and 429 are `.transmitterUnavailable`, other statuses `.transmitterRefused`.
    static func fetch(_ endpoint: ProviderEndpoint, issuer: String) -> EndpointFetch {
        var fetch = EndpointFetch(
            endpoint: endpoint, issuer: issuer, transportFailure: .transmitterUnavailable, invalidBody: .invalidTransmitterAnswer,
            accepted: 200...299,
            statusFailure: { response in
                let code: OIDCError.Code = response.status >= 500 || response.status == 429 ? .transmitterUnavailable : .transmitterRefused
                return OIDCError(code, "the transmitter's \(endpoint) answered HTTP \(response.status)", httpStatus: response.status, endpoint: endpoint)
            })
        fetch.quotesBody = false
        return fetch
    }
}
