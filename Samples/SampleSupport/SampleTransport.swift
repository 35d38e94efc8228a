// The samples' one rule for the transport to a provider (sample-authorize-url, sample-register,
// sample-resource-server, sample-exchange-code): `--ca-file FILE` or a client certificate → OIDCTLSTransport's
// LibSSLTransport; otherwise URLSessionTransport.
import OIDC
import OIDCNetworking
import OIDCTLSTransport

/// How a sample reaches the provider.
public enum SampleTransport {
    /// The transport for a sample's `--ca-file` (and, where the sample does mutual TLS, its client certificate).
    ///
    /// Guarantees: with a CA file or a client identity, a `LibSSLTransport` that trusts only the CA
    /// file's certificates (the system's trust store when there is none) and presents the identity
    /// when there is one; with neither, a `URLSessionTransport` (URLSession on Linux can neither be
    /// given a CA of its own nor present a client certificate). The files are read and checked here.
    /// - Parameters:
    ///   - caFile: the PEM file of the CA certificates trusted for the provider's TLS (`--ca-file`), or `nil`.
    ///   - clientIdentity: the client certificate and key presented in the handshake (`tls_client_auth`), or `nil`.
    /// - Throws: `LibSSLTransport`'s error, unchanged, when a file cannot be read or used; each sample
    ///   words it in its own (contracted) message.
    public static func make(caFile: String?, clientIdentity: LibSSLTransport.ClientIdentity? = nil) throws -> any HTTPTransport {
        guard caFile != nil || clientIdentity != nil else { return URLSessionTransport() }
        return try LibSSLTransport(clientIdentity: clientIdentity, serverTrust: caFile.map { .caFile($0) } ?? .system)
    }
}
