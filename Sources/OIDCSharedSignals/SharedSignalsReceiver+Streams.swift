import JOSE

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension SharedSignalsReceiver {
    /// Creates a stream (SSF 1.0 §8.1.1.1: POST to the `configuration_endpoint`) and returns the transmitter's answer.
    /// - Throws: ``/OIDCCore/OIDCError`` `.transmitterRefused` with ``/OIDCCore/OIDCError/httpStatus`` 409 when the
    ///   receiver already has a stream (read it with ``stream(id:)`` and update it); `.transmitterUnavailable`;
    ///   `.invalidTransmitterAnswer`; `.transmitterEndpointMissing`.
    public func createStream(_ stream: StreamConfiguration) async throws -> StreamConfiguration {
        StreamConfiguration(json: try await call(.post, transmitter.configurationEndpoint, "configuration_endpoint", body: stream.json))
    }

    /// Reads a stream's configuration (§8.1.1.2: GET with `stream_id`).
    public func stream(id: String) async throws -> StreamConfiguration {
        StreamConfiguration(json: try await call(.get, transmitter.configurationEndpoint, "configuration_endpoint", query: id))
    }

    /// Reads every stream of this receiver (§8.1.1.2: GET without `stream_id`): the transmitter's JSON array, or the
    /// one object a transmitter answers when it keeps a single stream per receiver. How a receiver whose
    /// ``createStream(_:)`` got 409 finds the stream it already has.
    /// - Throws: ``/OIDCCore/OIDCError`` `.invalidTransmitterAnswer` for an answer that is neither an object nor an
    ///   array of objects; what ``createStream(_:)`` throws otherwise.
    public func streams() async throws -> [StreamConfiguration] {
        let (response, fetch) = try await send(.get, transmitter.configurationEndpoint, "configuration_endpoint")
        let value: JSONValue
        do { value = try JSONParser.parse(response.body) } catch {
            throw OIDCError(.invalidTransmitterAnswer, "the transmitter's configuration_endpoint answered a body that is not JSON")
        }
        switch value {
        case .object: return [StreamConfiguration(json: try fetch.object(from: response))]
        case .array(let items):
            return try items.map {
                guard let object = $0.objectValue else {
                    throw OIDCError(.invalidTransmitterAnswer, "the transmitter's list of streams holds a member that is not an object")
                }
                return StreamConfiguration(json: object)
            }
        default: throw OIDCError(.invalidTransmitterAnswer, "the transmitter's configuration_endpoint answered neither a stream nor a list of streams")
        }
    }

    /// Updates the members given (§8.1.1.3: PATCH); `stream` must carry its `stream_id`.
    public func updateStream(_ stream: StreamConfiguration) async throws -> StreamConfiguration {
        StreamConfiguration(json: try await call("PATCH", transmitter.configurationEndpoint, "configuration_endpoint", body: stream.json))
    }

    /// Replaces the configuration (§8.1.1.4: PUT); `stream` must carry its `stream_id`.
    public func replaceStream(_ stream: StreamConfiguration) async throws -> StreamConfiguration {
        StreamConfiguration(json: try await call(.put, transmitter.configurationEndpoint, "configuration_endpoint", body: stream.json))
    }

    /// Deletes a stream (§8.1.1.5: DELETE with `stream_id`); the transmitter stops sending.
    public func deleteStream(id: String) async throws {
        _ = try await call(.delete, transmitter.configurationEndpoint, "configuration_endpoint", query: id)
    }

    /// Reads a stream's status (§8.1.2.1).
    public func streamStatus(id: String) async throws -> StreamStatus {
        try Self.status(try await call(.get, transmitter.statusEndpoint, "status_endpoint", query: id))
    }

    /// Asks the transmitter to change a stream's status (§8.1.2.2) to `enabled`, `paused` or `disabled`.
    public func updateStreamStatus(id: String, to status: String, reason: String? = nil) async throws -> StreamStatus {
        var body: JSONObject = ["stream_id": .string(id), "status": .string(status)]
        if let reason { body["reason"] = .string(reason) }
        return try Self.status(try await call(.post, transmitter.statusEndpoint, "status_endpoint", body: body))
    }

    /// Adds a subject to a stream (§8.1.3.2).
    public func addSubject(_ subject: SubjectIdentifier, streamID: String, verified: Bool? = nil) async throws {
        var body: JSONObject = ["stream_id": .string(streamID), "subject": .object(subject.json)]
        if let verified { body["verified"] = .bool(verified) }
        _ = try await call(.post, transmitter.addSubjectEndpoint, "add_subject_endpoint", body: body)
    }

    /// Removes a subject from a stream (§8.1.3.3).
    public func removeSubject(_ subject: SubjectIdentifier, streamID: String) async throws {
        _ = try await call(
            .post, transmitter.removeSubjectEndpoint, "remove_subject_endpoint", body: ["stream_id": .string(streamID), "subject": .object(subject.json)])
    }

    /// Asks for a verification event (§8.1.4.2): the transmitter sends an SSF verification SET carrying `state`.
    public func requestVerification(streamID: String, state: String?) async throws {
        var body: JSONObject = ["stream_id": .string(streamID)]
        if let state { body["state"] = .string(state) }
        _ = try await call(.post, transmitter.verificationEndpoint, "verification_endpoint", body: body)
    }

    /// One management call: the endpoint policy, the access token, JSON in and out (an empty 2xx answer is `{}`).
    private func call(
        _ method: TransportRequest.Method, _ endpoint: URL?, _ name: String, query streamID: String? = nil, body: JSONObject? = nil
    ) async throws -> JSONObject {
        let (response, fetch) = try await send(method, endpoint, name, query: streamID, body: body)
        return response.body.isEmpty ? JSONObject() : try fetch.object(from: response)
    }

    /// One management request: the endpoint policy, the access token, a JSON body; the answer as received (2xx).
    private func send(
        _ method: TransportRequest.Method, _ endpoint: URL?, _ name: String, query streamID: String? = nil, body: JSONObject? = nil
    ) async throws -> (TransportResponse, EndpointFetch) {
        guard var url = endpoint else {
            throw OIDCError(.transmitterEndpointMissing, "the transmitter configuration has no \(name)")
        }
        if let streamID {
            guard var components = URLComponents(url: url, resolvingAgainstBaseURL: false) else {
                throw OIDCError(.invalidTransmitterAnswer, "the transmitter's \(name) cannot take a query")
            }
            components.queryItems = (components.queryItems ?? []) + [URLQueryItem(name: "stream_id", value: streamID)]
            guard let withQuery = components.url else { throw OIDCError(.invalidTransmitterAnswer, "the transmitter's \(name) cannot take a query") }
            url = withQuery
        }
        var request = TransportRequest(method: method, url: url, headers: ["Accept": "application/json"])
        if let body {
            request.headers["Content-Type"] = "application/json"
            request.body = .bytes(Array(JSONValue.object(body).jsonString().utf8))
        }
        if let token = try await managementAccessToken() { request.headers["Authorization"] = "Bearer " + token }
        let fetch = TransmitterCall.fetch(ProviderEndpoint(rawValue: name), issuer: transmitter.issuer)
        return (try await fetch.send(request, via: transport), fetch)
    }

    private static func status(_ object: JSONObject) throws -> StreamStatus {
        guard let id = object["stream_id"]?.stringValue, let status = object["status"]?.stringValue else {
            throw OIDCError(.invalidTransmitterAnswer, "the transmitter's status answer lacks \"stream_id\" or \"status\"")
        }
        return StreamStatus(streamID: id, status: status, reason: object["reason"]?.stringValue)
    }
}
