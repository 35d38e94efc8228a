import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import OIDC

/// The default ``HTTPTransport``: Foundation's `URLSession` with an ephemeral
/// configuration (no cookies, no cache), per-request timeouts, a cap on the
/// response size, and no redirects unless the request allows them.
public final class URLSessionTransport: HTTPTransport, Sendable {
    private let refusing: URLSession
    private let following: URLSession
    /// Largest response body accepted, in bytes.
    public let maxResponseBytes: Int

    /// Creates a transport.
    public init(maxResponseBytes: Int = 4 << 20) {
        self.maxResponseBytes = maxResponseBytes
        let configuration = URLSessionConfiguration.ephemeral
        configuration.httpCookieStorage = nil
        configuration.urlCache = nil
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        refusing = URLSession(configuration: configuration, delegate: RedirectPolicy(follow: false), delegateQueue: nil)
        following = URLSession(configuration: configuration, delegate: RedirectPolicy(follow: true), delegateQueue: nil)
    }

    deinit {
        refusing.finishTasksAndInvalidate()
        following.finishTasksAndInvalidate()
    }

    /// Sends the request; failures without a response are ``TransportError``s.
    public func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        var urlRequest = URLRequest(url: request.url, cachePolicy: .reloadIgnoringLocalCacheData, timeoutInterval: request.timeout)
        urlRequest.httpMethod = request.method
        for field in request.headers { urlRequest.addValue(field.value, forHTTPHeaderField: field.name) }
        switch request.body {
        case .bytes(let bytes):
            urlRequest.httpBody = Data(bytes)
        case .stream(let stream):
            var collected: [UInt8] = []
            for await chunk in stream { collected += chunk }
            urlRequest.httpBody = Data(collected)
        case nil:
            break
        }
        let session = request.followsRedirects ? following : refusing
        let limit = maxResponseBytes
        let (data, response): (Data, URLResponse) = try await withCheckedThrowingContinuation { continuation in
            let task = session.dataTask(with: urlRequest) { data, response, error in
                if let error {
                    continuation.resume(throwing: Self.transportError(error))
                } else if let response {
                    continuation.resume(returning: (data ?? Data(), response))
                } else {
                    continuation.resume(throwing: TransportError.invalidResponse("no response"))
                }
            }
            task.resume()
        }
        guard data.count <= limit else { throw TransportError.responseTooLarge(limit) }
        guard let http = response as? HTTPURLResponse else { throw TransportError.invalidResponse("not an HTTP response") }
        var headers = HTTPHeaders()
        for (name, value) in http.allHeaderFields {
            if let name = name as? String, let value = value as? String { headers.add(name, value) }
        }
        return HTTPResponse(status: http.statusCode, headers: headers, body: [UInt8](data))
    }

    static func transportError(_ error: any Error) -> TransportError {
        let code = (error as? URLError)?.code ?? URLError.Code(rawValue: (error as NSError).code) ?? .unknown
        switch code {
        case .timedOut: return .timedOut
        case .cannotConnectToHost, .cannotFindHost, .networkConnectionLost, .notConnectedToInternet, .dnsLookupFailed:
            return .connectionFailed(code == .cannotFindHost || code == .dnsLookupFailed ? "host not found" : "connection refused or lost")
        case .secureConnectionFailed, .serverCertificateUntrusted, .serverCertificateHasBadDate, .serverCertificateNotYetValid:
            return .connectionFailed("TLS failed")
        default:
            return .connectionFailed("URL error \(code.rawValue)")
        }
    }
}

/// Refuses (or allows) HTTP redirects for every task of its session.
private final class RedirectPolicy: NSObject, URLSessionTaskDelegate, Sendable {
    let follow: Bool
    init(follow: Bool) { self.follow = follow }

    func urlSession(_ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
                    newRequest request: URLRequest, completionHandler: @escaping @Sendable (URLRequest?) -> Void) {
        completionHandler(follow ? request : nil)
    }
}
