#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Sends HTTP requests. Plug in any HTTP client (URLSession, AsyncHTTPClient,
/// a server framework's client) by conforming to this protocol.
public protocol HTTPTransport: Sendable {
    /// Sends `request` and returns the response, or throws (a ``TransportError`` for transport failures).
    func send(_ request: TransportRequest) async throws -> TransportResponse
}
