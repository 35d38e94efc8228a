import Metrics
import OIDC

/// The toolkit's events into swift-metrics: a counter `oidc_events_total` and, for timed events,
/// a timer `oidc_event_duration`, both dimensioned by event kind and outcome (`success` or the
/// error code). With no metrics backend bootstrapped these are no-ops.
struct MetricsObserver: OIDCObserver {
    func record(_ event: OIDCEvent) {
        let outcome: String
        switch event.outcome {
        case .success: outcome = "success"
        case .failure(let code): outcome = code
        }
        let dimensions = [("kind", event.kind.rawValue), ("outcome", outcome)]
        Counter(label: "oidc_events_total", dimensions: dimensions).increment()
        if let duration = event.duration {
            Metrics.Timer(label: "oidc_event_duration", dimensions: dimensions).recordNanoseconds(
                duration.components.seconds * 1_000_000_000 + duration.components.attoseconds / 1_000_000_000)
        }
    }
}

/// Hands each event to several observers (logs and metrics).
struct FanOutObserver: OIDCObserver {
    let observers: [any OIDCObserver]
    func record(_ event: OIDCEvent) { for observer in observers { observer.record(event) } }
}
