import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import NIOSSL
import OIDC

/// The toolkit's `HTTPTransport` over AsyncHTTPClient: every provider call of the app goes through it.
///
/// - Never follows a redirect (the client is built with `.disallow`; a 3xx is handed back as it is).
/// - A deadline per request: the request's own `timeout`, at most ``maximumTimeout``.
/// - The response body is bounded (``maximumResponseBytes``): a larger one fails with
///   `TransportError.responseTooLarge` instead of being buffered.
/// - The reference mTLS transport (RFC 8705): ``make(clientCertificate:trustRoots:)`` puts a client
///   certificate chain and key in the TLS configuration (`--tls-client-cert`, `--tls-client-key`), so
///   `tls_client_auth` and certificate-bound access tokens work over it; `--tls-ca-file` replaces the
///   system's trust roots for the provider.
struct AsyncHTTPClientTransport: HTTPTransport {
    let client: HTTPClient
    var maximumResponseBytes = 1 << 20
    var maximumTimeout: TimeInterval = 30

    /// A transport with its own `HTTPClient` (no redirects; optional client certificate for mTLS; optional trust roots).
    static func make(
        clientCertificate: (chain: [NIOSSLCertificate], key: NIOSSLPrivateKey)? = nil,
        trustRoots caFile: String? = nil
    ) -> AsyncHTTPClientTransport {
        var tls = TLSConfiguration.makeClientConfiguration()
        if let clientCertificate {
            tls.certificateChain = clientCertificate.chain.map { .certificate($0) }
            tls.privateKey = .privateKey(clientCertificate.key)
        }
        if let caFile { tls.trustRoots = .file(caFile) }
        let configuration = HTTPClient.Configuration(
            tlsConfiguration: tls, redirectConfiguration: .disallow,
            timeout: .init(connect: .seconds(10), read: .seconds(30)))
        return AsyncHTTPClientTransport(client: HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration))
    }

    func send(_ request: TransportRequest) async throws -> TransportResponse {
        var outgoing = HTTPClientRequest(url: request.url.absoluteString)
        outgoing.method = HTTPMethod(rawValue: request.method.rawValue)
        for (name, value) in request.headers { outgoing.headers.add(name: name, value: value) }
        switch request.body {
        case .bytes(let bytes)?: outgoing.body = .bytes(ByteBuffer(bytes: bytes))
        case .stream(let stream)?:
            // One-shot (the toolkit never retries it: TransportBody.isReplayable); gathered, then sent.
            var bytes: [UInt8] = []
            for await chunk in stream { bytes += chunk }
            outgoing.body = .bytes(ByteBuffer(bytes: bytes))
        case nil: break
        }
        let seconds = request.timeout.isFinite && request.timeout > 0 ? min(request.timeout, maximumTimeout) : maximumTimeout
        let deadline = NIODeadline.now() + .milliseconds(Int64((seconds * 1000).rounded()))
        let response: HTTPClientResponse
        do {
            response = try await client.execute(outgoing, deadline: deadline)
        } catch let error as HTTPClientError where error == .deadlineExceeded || error == .readTimeout || error == .connectTimeout {
            throw TransportError.timedOut
        } catch {
            throw TransportError.connectionFailed(String(describing: type(of: error)))
        }
        if let length = response.headers.first(name: "content-length").flatMap(Int.init), length > maximumResponseBytes {
            throw TransportError.responseTooLarge(maximumResponseBytes)
        }
        let body: ByteBuffer
        do {
            body = try await response.body.collect(upTo: maximumResponseBytes)
        } catch is NIOTooManyBytesError {
            throw TransportError.responseTooLarge(maximumResponseBytes)
        } catch let error as HTTPClientError where error == .deadlineExceeded || error == .readTimeout {
            throw TransportError.timedOut
        } catch {
            throw TransportError.connectionFailed("reading the response: \(type(of: error))")
        }
        var headers = HeaderFields()
        for header in response.headers { headers.add(header.name, header.value) }
        return TransportResponse(status: Int(response.status.code), headers: headers, body: Array(buffer: body))
    }

    func shutdown() async throws { try await client.shutdown() }
}
