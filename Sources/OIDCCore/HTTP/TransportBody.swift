#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A request body: bytes that can be sent again, or a one-shot stream that cannot.
public enum TransportBody: Sendable {
    /// Bytes, replayable.
    case bytes([UInt8])
    /// A stream that can be consumed once; a retry of a request with such a body is refused.
    case stream(AsyncStream<[UInt8]>)

    /// Whether the body can be sent more than once.
    public var isReplayable: Bool { if case .bytes = self { return true }; return false }
}
