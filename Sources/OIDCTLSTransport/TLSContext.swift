import CLibSSL

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Which certificates a TLS client trusts for the server.
package enum TLSTrust: Sendable, Hashable {
    /// The system's trust store (OpenSSL's default verify paths).
    case system
    /// Only the CA certificates in this PEM file.
    case caFile(String)
}

/// One configured libssl context (`SSL_CTX`): TLS 1.2 at least, peer verification on, the trusted
/// CAs, and optionally the client's certificate chain and private key (checked to match). Immutable
/// once made, so connections may be opened from it on any thread. The private key stays inside
/// libssl; no error names anything but the file paths.
package final class TLSContext: @unchecked Sendable {
    package let api: jose_ssl_table
    package let context: OpaquePointer
    /// The DER of the client certificate (the chain's first), when one was loaded.
    package let clientCertificateDER: [UInt8]?

    /// - Parameters:
    ///   - trust: the certificates trusted for the server.
    ///   - identity: the PEM file of the client's certificate chain (leaf first) and the PEM file of its
    ///     unencrypted private key, or `nil` for no client certificate.
    package init(trust: TLSTrust, identity: (certificateFile: String, keyFile: String)?) throws(FetchError) {
        guard let api = jose_ssl_load()?.pointee else { throw .connectionFailed("libssl (OpenSSL 3) could not be loaded") }
        guard let method = api.TLS_client_method?(), let context = api.SSL_CTX_new?(method) else {
            ERR_clear_error()
            throw .connectionFailed("cannot initialise TLS")
        }
        do {
            clientCertificateDER = try Self.configure(api: api, context: context, trust: trust, identity: identity)
        } catch {
            api.SSL_CTX_free?(context)
            throw error
        }
        self.api = api
        self.context = context
    }

    deinit { api.SSL_CTX_free?(context) }

    /// Sets up `context`; returns the client certificate's DER when one was loaded.
    private static func configure(
        api: jose_ssl_table, context: OpaquePointer, trust: TLSTrust,
        identity: (certificateFile: String, keyFile: String)?
    ) throws(FetchError) -> [UInt8]? {
        api.SSL_CTX_set_verify?(context, SSL_VERIFY_PEER, nil)
        withUnsafePointer(to: api) { jose_ssl_ctx_refuse_passphrases($0, context) }
        guard withUnsafePointer(to: api, { jose_ssl_ctx_require_tls12($0, context) }) == 1 else {
            ERR_clear_error()
            throw .connectionFailed("cannot require TLS 1.2 or later")
        }
        switch trust {
        case .system:
            guard api.SSL_CTX_set_default_verify_paths?(context) == 1 else {
                ERR_clear_error()
                throw .connectionFailed("cannot set up TLS 1.2+ with the system's trusted certificates")
            }
        case .caFile(let path):
            guard api.SSL_CTX_load_verify_locations?(context, path, nil) == 1 else {
                ERR_clear_error()
                throw .connectionFailed("cannot read the CA certificates in \(TerminalText.escape(path)) (PEM expected)")
            }
        }
        if let identity {
            guard api.SSL_CTX_use_certificate_chain_file?(context, identity.certificateFile) == 1 else {
                ERR_clear_error()
                throw .connectionFailed("cannot read the client certificate in \(TerminalText.escape(identity.certificateFile)) (PEM expected)")
            }
            guard api.SSL_CTX_use_PrivateKey_file?(context, identity.keyFile, SSL_FILETYPE_PEM) == 1 else {
                ERR_clear_error()
                throw .connectionFailed(
                    "cannot use the client private key in \(TerminalText.escape(identity.keyFile)) "
                        + "(an unencrypted PEM key that matches the certificate expected)")
            }
            guard api.SSL_CTX_check_private_key?(context) == 1 else {
                ERR_clear_error()
                throw .connectionFailed(
                    "the client private key in \(TerminalText.escape(identity.keyFile)) does not match the certificate in "
                        + TerminalText.escape(identity.certificateFile))
            }
            guard let certificate = api.SSL_CTX_get0_certificate?(context) else {
                throw .connectionFailed("no client certificate in \(TerminalText.escape(identity.certificateFile))")
            }
            let length = i2d_X509(certificate, nil)
            guard length > 0 else {
                ERR_clear_error()
                throw .connectionFailed("cannot encode the client certificate")
            }
            var der = [UInt8](repeating: 0, count: Int(length))
            let written = der.withUnsafeMutableBufferPointer { buffer -> Int32 in
                var cursor = buffer.baseAddress
                return i2d_X509(certificate, &cursor)
            }
            guard written == length else { throw .connectionFailed("cannot encode the client certificate") }
            return der
        }
        return nil
    }
}
