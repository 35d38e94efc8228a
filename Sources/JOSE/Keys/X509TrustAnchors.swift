#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The certificates an application trusts as the roots of X.509 chains (an SD-JWT VC issuer's `x5c`): a chain is
/// accepted only when libcrypto's X.509 path validation leads from its leaf to one of these, never on its own word.
public struct X509TrustAnchors: Sendable, Hashable {
    /// The anchors' DER encodings.
    let certificates: [[UInt8]]

    /// Anchors read from PEM text holding one or more `CERTIFICATE` blocks (other blocks ignored).
    /// - Throws: ``JOSEError`` `.invalidKey` when the text holds no certificate, or a block that is not a DER X.509 certificate.
    public init(pem: String) throws {
        var certificates: [[UInt8]] = []
        var body: String?
        for rawLine in pem.split(whereSeparator: \.isNewline) {
            let line = String(rawLine.filter { !$0.isWhitespace })
            if line == "-----BEGINCERTIFICATE-----" {
                body = ""
            } else if line == "-----ENDCERTIFICATE-----" {
                guard let text = body, let der = X509Chain.base64(text) else {
                    throw JOSEError(.invalidKey, "a CERTIFICATE block of the trust anchors is not Base64 between BEGIN and END lines")
                }
                certificates.append(der)
                body = nil
            } else if body != nil {
                body? += line
            }
        }
        guard body == nil else { throw JOSEError(.invalidKey, "a CERTIFICATE block of the trust anchors has no END line") }
        try self.init(der: certificates)
    }

    /// Anchors from DER-encoded certificates.
    /// - Throws: ``JOSEError`` `.invalidKey` for an empty list or bytes that are not an X.509 certificate.
    public init(der certificates: [[UInt8]]) throws {
        guard !certificates.isEmpty else { throw JOSEError(.invalidKey, "the trust anchors hold no certificate") }
        for der in certificates { try X509Chain.withCertificate(der, what: "a trust anchor") { _ in } }
        self.certificates = certificates
    }
}
