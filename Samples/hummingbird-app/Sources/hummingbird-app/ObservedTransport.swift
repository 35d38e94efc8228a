import Foundation
import OIDC
import Tracing

/// Wraps the provider transport: one tracing span per provider call (swift-distributed-tracing)
/// and one `OIDCEvent` (kind `provider.call`) for the observer. Only the method, the origin and
/// the status are recorded: never a path, query, header or body (they carry codes and tokens).
struct ObservedTransport: HTTPTransport {
    let base: any HTTPTransport
    let observer: any OIDCObserver

    func send(_ request: TransportRequest) async throws -> TransportResponse {
        let origin = OIDCEvent.origin(of: request.url)
        let started = ContinuousClock.now
        return try await withSpan("oidc.provider_call", ofKind: .client) { span in
            span.attributes["http.request.method"] = request.method.rawValue
            if let origin { span.attributes["server.origin"] = origin }
            do {
                let response = try await base.send(request)
                span.attributes["http.response.status_code"] = response.status
                observer.record(OIDCEvent(kind: .providerCall, outcome: response.status < 400 ? .success : .failure(code: "http_\(response.status)"),
                                          origin: origin, duration: ContinuousClock.now - started))
                return response
            } catch {
                let code = (error as? TransportError).map(Self.code) ?? "transport_error"
                span.setStatus(SpanStatus(code: .error, message: code))
                observer.record(OIDCEvent(kind: .providerCall, outcome: .failure(code: code), origin: origin,
                                          duration: ContinuousClock.now - started))
                throw error
            }
        }
    }

    static func code(_ error: TransportError) -> String {
        switch error {
        case .timedOut: return "timed_out"
        case .connectionFailed: return "connection_failed"
        case .invalidResponse: return "invalid_response"
        case .responseTooLarge: return "response_too_large"
        case .bodyNotReplayable: return "body_not_replayable"
        }
    }
}
