import Foundation
import OIDCCore

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// An ``/OIDCCore/HTTPTransport`` on Foundation's `URLSession`.
///
/// Redirects are followed only when the request allows it (`TransportRequest.followsRedirects`;
/// never for token requests), response bodies are capped at ``maximumResponseBytes``, and
/// failures become `TransportError`s (`.timedOut` for `URLError.timedOut`).
///
/// Mutual TLS (RFC 8705): this transport presents **no client certificate**. On Linux it cannot:
/// swift-corelibs-foundation's `URLCredential` has only the user/password form (no
/// `init(identity:certificates:persistence:)`, no `SecIdentity`), and neither
/// `URLSessionConfiguration` nor the session delegate can hand libcurl a certificate and key.
/// On Apple platforms `URLSession` could answer an `NSURLAuthenticationMethodClientCertificate`
/// challenge with an identity from the keychain, but this transport does not. For
/// `tls_client_auth`, `self_signed_tls_client_auth` and certificate-bound access tokens use
/// `LibSSLTransport` (module OIDCTLSTransport) or an AsyncHTTPClient transport with a client
/// certificate in its TLS configuration (Samples/hummingbird-app).
public final class URLSessionTransport: HTTPTransport {
    /// The largest response body accepted, in bytes.
    public let maximumResponseBytes: Int
    private let session: URLSession
    private let tasks: TaskTable

    /// Creates a transport with its own session.
    /// - Parameters:
    ///   - configuration: the session configuration (default: ephemeral: no cookies or cache kept).
    ///   - maximumResponseBytes: the body limit (default 1 MiB).
    public init(configuration: URLSessionConfiguration = .ephemeral, maximumResponseBytes: Int = 1 << 20) {
        self.maximumResponseBytes = maximumResponseBytes
        let tasks = TaskTable(limit: maximumResponseBytes)
        self.tasks = tasks
        self.session = URLSession(configuration: configuration, delegate: tasks, delegateQueue: nil)
    }

    deinit { session.finishTasksAndInvalidate() }

    /// Sends `request`; a `.stream` body is collected first.
    public func send(_ request: TransportRequest) async throws -> TransportResponse {
        var urlRequest = URLRequest(url: request.url, cachePolicy: .reloadIgnoringLocalCacheData, timeoutInterval: request.timeout)
        urlRequest.httpMethod = request.method.rawValue
        for field in request.headers { urlRequest.addValue(field.value, forHTTPHeaderField: field.name) }
        switch request.body {
        case .bytes(let bytes):
            urlRequest.httpBody = Data(bytes)
        case .stream(let stream):
            var bytes: [UInt8] = []
            for await chunk in stream {
                bytes += chunk
                if bytes.count > 16 << 20 { throw TransportError.connectionFailed("the request body exceeds 16 MiB") }
            }
            urlRequest.httpBody = Data(bytes)
        case nil:
            break
        }
        let task = session.dataTask(with: urlRequest)
        let tasks = self.tasks
        // URLRequest.timeoutInterval is not reliably enforced by every Foundation, so the transport has its own deadline.
        let deadline = Task {
            try await Task.sleep(for: .seconds(max(request.timeout, 0.001)))
            tasks.expire(task)
        }
        defer { deadline.cancel() }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                tasks.register(task, followsRedirects: request.followsRedirects, continuation: continuation)
                task.resume()
            }
        } onCancel: {
            task.cancel()
        }
    }
}

/// The per-task state, behind a lock; the session's delegate.
private final class TaskTable: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    private struct Entry {
        var continuation: CheckedContinuation<TransportResponse, any Error>
        var followsRedirects: Bool
        var body: [UInt8] = []
        var response: HTTPURLResponse?
        var tooLarge = false
        var timedOut = false
    }

    private let lock = NSLock()
    private var entries: [Int: Entry] = [:]
    let limit: Int

    init(limit: Int) { self.limit = limit }

    func register(_ task: URLSessionTask, followsRedirects: Bool, continuation: CheckedContinuation<TransportResponse, any Error>) {
        lock.withLock { entries[task.taskIdentifier] = Entry(continuation: continuation, followsRedirects: followsRedirects) }
    }

    /// The deadline passed: the task fails with `.timedOut`.
    func expire(_ task: URLSessionTask) {
        let pending = lock.withLock { () -> Bool in
            guard entries[task.taskIdentifier] != nil else { return false }
            entries[task.taskIdentifier]?.timedOut = true
            return true
        }
        if pending { task.cancel() }
    }

    func urlSession(
        _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
        newRequest request: URLRequest, completionHandler: @escaping @Sendable (URLRequest?) -> Void
    ) {
        let follows = lock.withLock { entries[task.taskIdentifier]?.followsRedirects ?? false }
        completionHandler(follows ? request : nil)
    }

    func urlSession(
        _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
        completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void
    ) {
        let allow = lock.withLock { () -> Bool in
            entries[dataTask.taskIdentifier]?.response = response as? HTTPURLResponse
            if response.expectedContentLength > Int64(limit) {
                entries[dataTask.taskIdentifier]?.tooLarge = true
                return false
            }
            return true
        }
        completionHandler(allow ? .allow : .cancel)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        let exceeded = lock.withLock { () -> Bool in
            guard var entry = entries[dataTask.taskIdentifier] else { return false }
            if entry.body.count + data.count > limit {
                entry.tooLarge = true
                entry.body = []
            } else {
                entry.body.append(contentsOf: data)
            }
            entries[dataTask.taskIdentifier] = entry
            return entry.tooLarge
        }
        if exceeded { dataTask.cancel() }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        guard let entry = lock.withLock({ entries.removeValue(forKey: task.taskIdentifier) }) else { return }
        if entry.timedOut {
            entry.continuation.resume(throwing: TransportError.timedOut)
        } else if entry.tooLarge {
            entry.continuation.resume(throwing: TransportError.responseTooLarge(limit))
        } else if let error {
            entry.continuation.resume(throwing: Self.map(error))
        } else if let response = entry.response ?? (task.response as? HTTPURLResponse) {
            var headers = HeaderFields()
            for (name, value) in response.allHeaderFields {
                if let name = name as? String, let value = value as? String { headers.add(name, value) }
            }
            entry.continuation.resume(returning: TransportResponse(status: response.statusCode, headers: headers, body: entry.body))
        } else {
            entry.continuation.resume(throwing: TransportError.invalidResponse("no HTTP response"))
        }
    }

    private static func map(_ error: any Error) -> any Error {
        guard let urlError = error as? URLError else { return TransportError.connectionFailed(String(describing: type(of: error))) }
        switch urlError.code {
        case .timedOut: return TransportError.timedOut
        case .cancelled: return CancellationError()
        case .badServerResponse, .cannotParseResponse: return TransportError.invalidResponse("URLError \(urlError.code.rawValue)")
        default: return TransportError.connectionFailed("URLError \(urlError.code.rawValue)")
        }
    }
}
