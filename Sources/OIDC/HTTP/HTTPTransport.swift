#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// HTTP header fields: ordered, names compared case-insensitively.
public struct HeaderFields: Sendable, Hashable, Sequence, ExpressibleByDictionaryLiteral {
    /// The fields in order.
    public private(set) var fields: [(name: String, value: String)] = []

    /// No fields.
    public init() {}
    /// Fields from a literal.
    public init(dictionaryLiteral elements: (String, String)...) {
        for (name, value) in elements { add(name, value) }
    }

    /// The first value of a field, or `nil`.
    public subscript(name: String) -> String? {
        get { fields.first { $0.name.lowercased() == name.lowercased() }?.value }
        set {
            fields.removeAll { $0.name.lowercased() == name.lowercased() }
            if let newValue { fields.append((name, newValue)) }
        }
    }
    /// All values of a field.
    public func values(for name: String) -> [String] { fields.filter { $0.name.lowercased() == name.lowercased() }.map(\.value) }
    /// Appends a field (keeping existing ones of the same name).
    public mutating func add(_ name: String, _ value: String) { fields.append((name, value)) }
    /// Iterates the fields in order.
    public func makeIterator() -> IndexingIterator<[(name: String, value: String)]> { fields.makeIterator() }

    /// Same fields in the same order (names case-insensitively).
    public static func == (lhs: HeaderFields, rhs: HeaderFields) -> Bool {
        lhs.fields.count == rhs.fields.count && zip(lhs.fields, rhs.fields).allSatisfy { $0.name.lowercased() == $1.name.lowercased() && $0.value == $1.value }
    }
    /// Hashes names (lower-cased) and values.
    public func hash(into hasher: inout Hasher) {
        for field in fields { hasher.combine(field.name.lowercased()); hasher.combine(field.value) }
    }
}

/// A request body: bytes that can be sent again, or a one-shot stream that cannot.
public enum TransportBody: Sendable {
    /// Bytes, replayable.
    case bytes([UInt8])
    /// A stream that can be consumed once; a retry of a request with such a body is refused.
    case stream(AsyncStream<[UInt8]>)

    /// Whether the body can be sent more than once.
    public var isReplayable: Bool { if case .bytes = self { return true }; return false }
}

/// An HTTP request, independent of any HTTP client library.
public struct TransportRequest: Sendable {
    /// `GET`, `POST`, ...
    public var method: String
    /// The absolute URL.
    public var url: URL
    /// Header fields.
    public var headers: HeaderFields
    /// The body, if any.
    public var body: TransportBody?
    /// Give up after this many seconds.
    public var timeout: TimeInterval
    /// Whether redirects may be followed (never for token requests).
    public var followsRedirects: Bool

    /// Creates a request.
    public init(method: String = "GET", url: URL, headers: HeaderFields = [:], body: TransportBody? = nil,
                timeout: TimeInterval = 30, followsRedirects: Bool = false) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
        self.timeout = timeout
        self.followsRedirects = followsRedirects
    }
}

/// An HTTP response with its whole body.
public struct TransportResponse: Sendable {
    /// The status code.
    public var status: Int
    /// Header fields.
    public var headers: HeaderFields
    /// The body bytes.
    public var body: [UInt8]

    /// Creates a response.
    public init(status: Int, headers: HeaderFields = [:], body: [UInt8] = []) {
        self.status = status
        self.headers = headers
        self.body = body
    }
}

/// Why a request got no HTTP response.
public enum TransportError: Error, Sendable, Hashable, CustomStringConvertible {
    /// No response within the timeout.
    case timedOut
    /// The connection could not be made or broke (the reason has no secrets).
    case connectionFailed(String)
    /// The response could not be read as HTTP.
    case invalidResponse(String)
    /// The response body exceeded the transport's limit.
    case responseTooLarge(Int)
    /// A request body stream was already consumed and cannot be sent again.
    case bodyNotReplayable

    /// A one-line explanation.
    public var description: String {
        switch self {
        case .timedOut: return "the request timed out"
        case .connectionFailed(let reason): return "connection failed: \(reason)"
        case .invalidResponse(let reason): return "invalid HTTP response: \(reason)"
        case .responseTooLarge(let limit): return "the response exceeded \(limit) bytes"
        case .bodyNotReplayable: return "the request body is a one-shot stream and cannot be sent again"
        }
    }
}

/// Sends HTTP requests. Plug in any HTTP client (URLSession, AsyncHTTPClient,
/// a server framework's client) by conforming to this protocol.
public protocol HTTPTransport: Sendable {
    /// Sends `request` and returns the response, or throws (a ``TransportError`` for transport failures).
    func send(_ request: TransportRequest) async throws -> TransportResponse
}
