import JOSE

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A stream's configuration (SSF 1.0 §8.1.1): what a receiver asks for, and what the transmitter answers.
///
/// The typed members read and write ``json``; members this version does not name stay in it untouched.
public struct StreamConfiguration: Sendable, Hashable {
    /// Every member.
    public var json: JSONObject

    /// RFC 8935 push delivery: `urn:ietf:rfc:8935`.
    public static let pushMethod = "urn:ietf:rfc:8935"
    /// RFC 8936 poll delivery: `urn:ietf:rfc:8936`.
    public static let pollMethod = "urn:ietf:rfc:8936"

    /// A stream of push delivery to `endpoint`, the transmitter sending `authorization` as the `Authorization` header.
    public static func push(to endpoint: URL, authorization: String?, eventsRequested: [SecurityEventType]) -> StreamConfiguration {
        var delivery: JSONObject = ["method": .string(pushMethod), "endpoint_url": .string(endpoint.absoluteString)]
        if let authorization { delivery["authorization_header"] = .string(authorization) }
        return StreamConfiguration(json: ["delivery": .object(delivery), "events_requested": .array(eventsRequested.map { .string($0.rawValue) })])
    }

    /// A stream of poll delivery (the transmitter answers with the `endpoint_url` to poll).
    public static func poll(eventsRequested: [SecurityEventType]) -> StreamConfiguration {
        StreamConfiguration(json: [
            "delivery": .object(["method": .string(pollMethod)]), "events_requested": .array(eventsRequested.map { .string($0.rawValue) }),
        ])
    }

    /// Wraps a stream configuration object.
    public init(json: JSONObject) { self.json = json }

    /// `stream_id`
    public var streamID: String? {
        get { json["stream_id"]?.stringValue }
        set { json["stream_id"] = newValue.map { .string($0) } }
    }
    /// `delivery.method`
    public var deliveryMethod: String? { json["delivery"]?.objectValue?["method"]?.stringValue }
    /// `delivery.endpoint_url`: the push receiver's URL, or the transmitter's poll endpoint.
    public var endpointURL: URL? { json["delivery"]?.objectValue?["endpoint_url"]?.stringValue.flatMap { URL(string: $0) } }
    /// `events_requested`
    public var eventsRequested: [SecurityEventType] {
        get { types("events_requested") }
        set { json["events_requested"] = .array(newValue.map { .string($0.rawValue) }) }
    }
    /// `events_supported` (set by the transmitter).
    public var eventsSupported: [SecurityEventType] { types("events_supported") }
    /// `events_delivered` (set by the transmitter): the intersection of requested and supported.
    public var eventsDelivered: [SecurityEventType] { types("events_delivered") }

    private func types(_ name: String) -> [SecurityEventType] {
        json[name]?.arrayValue?.compactMap(\.stringValue).map(SecurityEventType.init(rawValue:)) ?? []
    }
}

/// A stream's status (SSF 1.0 §8.1.2): `enabled`, `paused` or `disabled`, and the transmitter's reason.
public struct StreamStatus: Sendable, Hashable {
    /// `stream_id`
    public let streamID: String
    /// `status`: `enabled`, `paused`, `disabled`.
    public let status: String
    /// `reason`, when given.
    public let reason: String?
}
