#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension BackChannelClient {
    /// Runs one POST to the provider's `name` endpoint; for an endpoint other than the token endpoint
    /// (whose requests ``requestTokens(_:at:)`` records with their grant type) records a
    /// ``OIDCEvent/Kind/providerCall``: a success for a 2xx answer, else the failure's code
    /// (the registered OAuth code, or the endpoint error's).
    func observedCall(_ name: ProviderEndpoint, to endpoint: URL,
                      _ call: () async throws -> TransportResponse) async throws -> TransportResponse {
        guard let observer, name != .token else { return try await call() }
        let clock = ContinuousClock()
        let start = clock.now
        let response: TransportResponse
        do {
            response = try await call()
        } catch {
            observer.record(OIDCEvent(kind: .providerCall, outcome: .failure(code: Observation.code(of: error)),
                                      origin: OIDCEvent.origin(of: endpoint), duration: clock.now - start))
            throw error
        }
        let outcome: OIDCEvent.Outcome = (200...299).contains(response.status)
            ? .success : .failure(code: Observation.code(of: EndpointResponse.error(for: response, what: name.rawValue)))
        observer.record(OIDCEvent(kind: .providerCall, outcome: outcome, origin: OIDCEvent.origin(of: endpoint), duration: clock.now - start))
        return response
    }
}
