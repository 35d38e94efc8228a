#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// An HTTP request as the toolkit hands it to an ``HTTPTransport``, independent of any HTTP client
/// library (named so that it never clashes with swift-http-types' or a server framework's request).
public struct TransportRequest: Sendable {
    /// An HTTP method: a type, not a string; any token is allowed, the common ones are constants.
    public struct Method: RawRepresentable, Sendable, Hashable, ExpressibleByStringLiteral, CustomStringConvertible {
        /// The method as sent on the wire, e.g. `GET`.
        public let rawValue: String
        /// The method `rawValue` (case-sensitive, as HTTP methods are).
        public init(rawValue: String) { self.rawValue = rawValue }
        /// The method named by a literal, e.g. `"PATCH"`.
        public init(stringLiteral value: String) { self.rawValue = value }
        /// The method as sent on the wire.
        public var description: String { rawValue }

        /// `GET`
        public static let get: Method = "GET"
        /// `HEAD`
        public static let head: Method = "HEAD"
        /// `POST`
        public static let post: Method = "POST"
        /// `PUT`
        public static let put: Method = "PUT"
        /// `PATCH`
        public static let patch: Method = "PATCH"
        /// `DELETE`
        public static let delete: Method = "DELETE"
        /// `OPTIONS`
        public static let options: Method = "OPTIONS"
    }

    /// `.get`, `.post`, ...
    public var method: Method
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
    public init(
        method: Method = .get, url: URL, headers: HeaderFields = [:], body: TransportBody? = nil,
        timeout: TimeInterval = 30, followsRedirects: Bool = false
    ) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
        self.timeout = timeout
        self.followsRedirects = followsRedirects
    }
}
