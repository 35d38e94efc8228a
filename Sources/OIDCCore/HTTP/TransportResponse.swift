#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// An HTTP response as an ``HTTPTransport`` returns it, with its whole body.
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
