#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

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
