import Dispatch
import JOSE
import OIDCCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// An ``/OIDCCore/HTTPTransport`` on POSIX sockets and OpenSSL's libssl that can present a client
/// certificate: the transport for mutual-TLS client authentication (`tls_client_auth`,
/// `self_signed_tls_client_auth`, RFC 8705 §2) and certificate-bound access tokens (RFC 8705 §3).
/// (`URLSessionTransport` cannot present a client certificate on Linux: swift-corelibs-foundation's
/// `URLCredential` has no certificate identity.)
///
/// Guarantees: TLS 1.2 or later; the server's certificate verified against ``ServerTrust`` and
/// its name (or IP address) checked against the URL's host; only `https` URLs, or `http` on a
/// loopback host (``/OIDCCore/SecureURLPolicy``), so a client certificate is only ever sent over
/// TLS; one deadline (the request's `timeout`) over connecting, the handshake, sending and
/// reading; response bodies capped at ``maximumResponseBytes``; redirects never followed (a 3xx
/// comes back as the response); header fields with CR, LF or NUL refused. Failures are
/// `TransportError`s; no message holds a key, a body or a header value. HTTP/1.1, one request
/// per connection; the blocking socket work runs off the cooperative thread pool (on a Dispatch
/// queue), so cancelling the calling task does not cut a request short: its deadline does.
public struct LibSSLTransport: HTTPTransport {
    /// The client's certificate and private key, as PEM files.
    public struct ClientIdentity: Sendable, Hashable {
        /// The PEM file of the certificate chain, the client's certificate first.
        public var certificateFile: String
        /// The PEM file of the (unencrypted) private key of that certificate.
        public var privateKeyFile: String

        /// Names the two files; they are read when the transport is made.
        public init(certificateFile: String, privateKeyFile: String) {
            self.certificateFile = certificateFile
            self.privateKeyFile = privateKeyFile
        }
    }

    /// The certificates trusted for the server.
    public enum ServerTrust: Sendable, Hashable {
        /// The system's trust store.
        case system
        /// Only the CA certificates of this PEM file (e.g. a test provider's own CA).
        case caFile(String)
    }

    /// The largest response body accepted, in bytes.
    public let maximumResponseBytes: Int
    /// The DER encoding of the client certificate presented, when there is one: what a
    /// certificate-bound token's `cnf.x5t#S256` is the SHA-256 of.
    public var clientCertificateDER: [UInt8]? { context.clientCertificateDER }
    private let context: TLSContext

    /// Creates a transport; the files are read and checked here (the key must match the certificate).
    /// - Parameters:
    ///   - clientIdentity: the certificate and key to present, or `nil` for none.
    ///   - serverTrust: the certificates trusted for the server (default: the system's).
    ///   - maximumResponseBytes: the body limit (default 1 MiB).
    /// - Throws: `TransportError.connectionFailed` naming the file that could not be read or the
    ///   mismatch, or that libssl (OpenSSL 3) could not be loaded.
    public init(clientIdentity: ClientIdentity? = nil, serverTrust: ServerTrust = .system, maximumResponseBytes: Int = 1 << 20) throws {
        let trust: TLSTrust
        switch serverTrust {
        case .system: trust = .system
        case .caFile(let path): trust = .caFile(path)
        }
        do {
            context = try TLSContext(trust: trust, identity: clientIdentity.map { ($0.certificateFile, $0.privateKeyFile) })
        } catch {
            throw Self.transportError(error)
        }
        self.maximumResponseBytes = max(0, maximumResponseBytes)
    }

    /// Sends `request` and returns the response, whatever its status; a `.stream` body is collected first.
    public func send(_ request: TransportRequest) async throws -> TransportResponse {
        let text = request.url.absoluteString
        do {
            _ = try SecureURLPolicy.check(text, what: "the request URL")
        } catch {
            throw TransportError.connectionFailed("the request URL is neither https nor http on a loopback host")
        }
        var body: [UInt8] = []
        switch request.body {
        case .bytes(let bytes): body = bytes
        case .stream(let stream):
            for await chunk in stream {
                body += chunk
                if body.count > 16 << 20 { throw TransportError.connectionFailed("the request body exceeds 16 MiB") }
            }
        case nil: break
        }
        let target: HTTPFetch.Target
        do { target = try HTTPFetch.parse(text) } catch { throw Self.transportError(error) }
        let head = try Self.head(request, target: target, bodyLength: request.body == nil ? nil : body.count)
        let message = Array(head.utf8) + body
        let context = self.context, limit = maximumResponseBytes, seconds = request.timeout.isFinite ? min(max(request.timeout, 0.001), 3600) : 30
        let parsed = try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<ParsedHTTPResponse, any Error>) in
            DispatchQueue.global().async {
                let result = Result { () throws(FetchError) -> ParsedHTTPResponse in
                    try HTTPFetch.exchange(target, request: message, tls: target.isTLS ? context : nil, deadlineSeconds: seconds, limit: limit)
                }
                continuation.resume(with: result.mapError { Self.transportError($0) as any Error })
            }
        }
        var headers = HeaderFields()
        for field in parsed.headers { headers.add(field.name, field.value) }
        return TransportResponse(status: parsed.status, headers: headers, body: parsed.body)
    }

    /// The request line and header fields; `Host`, `Content-Length` and `Connection` are the transport's.
    static func head(_ request: TransportRequest, target: HTTPFetch.Target, bodyLength: Int?) throws -> String {
        let method = request.method.rawValue
        guard !method.isEmpty, method.utf8.allSatisfy({ (0x41...0x5A).contains($0) || $0 == 0x2D }) else {
            throw TransportError.connectionFailed("the request method is not an HTTP method token")
        }
        var head = "\(method) \(target.path) HTTP/1.1\r\nHost: \(target.hostHeader)\r\n"
        var hasUserAgent = false
        for field in request.headers {
            let name = field.name.lowercased()
            if ["host", "content-length", "connection", "transfer-encoding"].contains(name) { continue }
            guard !field.name.isEmpty, field.name.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F && $0 != 0x3A }),
                !field.value.utf8.contains(where: { $0 == 0x0D || $0 == 0x0A || $0 == 0 })
            else {
                throw TransportError.connectionFailed(
                    "a request header field (\(TerminalText.escape(String(field.name.prefix(40))))) "
                        + "has a malformed name or a line break in its value")
            }
            if name == "user-agent" { hasUserAgent = true }
            head += "\(field.name): \(field.value)\r\n"
        }
        if !hasUserAgent { head += "User-Agent: swift-oidc-toolkit\r\n" }
        if let bodyLength { head += "Content-Length: \(bodyLength)\r\n" }
        return head + "Connection: close\r\n\r\n"
    }

    static func transportError(_ error: FetchError) -> TransportError {
        switch error {
        case .timedOut: return .timedOut
        case .responseTooLarge(let limit): return .responseTooLarge(limit)
        case .invalidResponse: return .invalidResponse(error.message)
        case .badURL, .connectionFailed: return .connectionFailed(error.message)
        }
    }
}
