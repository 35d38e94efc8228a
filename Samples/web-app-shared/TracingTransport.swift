import Foundation
import OIDC
import Tracing

/// Wraps the provider transport in one swift-distributed-tracing span per provider call
/// (`oidc.provider_call`, kind client). Only the method, the origin and the status are recorded:
/// never a path, query, header or body (they carry codes and tokens). What the call was for
/// (token request, discovery, key set, UserInfo...) is the toolkit's `OIDCEvent`, through the observer.
struct TracingTransport: HTTPTransport {
    let base: any HTTPTransport

    func send(_ request: TransportRequest) async throws -> TransportResponse {
        try await withSpan("oidc.provider_call", ofKind: .client) { span in
            span.attributes["http.request.method"] = request.method.rawValue
            if let origin = OIDCEvent.origin(of: request.url) { span.attributes["server.origin"] = origin }
            do {
                let response = try await base.send(request)
                span.attributes["http.response.status_code"] = response.status
                if response.status >= 500 { span.setStatus(SpanStatus(code: .error)) }
                return response
            } catch {
                span.setStatus(SpanStatus(code: .error, message: (error as? TransportError).map { "\($0)" } ?? "transport error"))
                throw error
            }
        }
    }
}
