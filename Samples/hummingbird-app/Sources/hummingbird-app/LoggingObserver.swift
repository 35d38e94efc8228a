import Logging
import OIDC

/// The toolkit's events into swift-log. Library events are logged at `debug` (successes) and
/// `trace`-level detail stays out, as the Swift server guides ask of libraries: the app decides
/// the level (`--log-level`). Failures are `debug` too (the app logs what it does about them at
/// `info`/`warning`). Events carry no secrets (OIDCEvent's guarantee), so they are logged whole.
struct LoggingObserver: OIDCObserver {
    let logger: Logger

    func record(_ event: OIDCEvent) {
        var metadata: Logger.Metadata = ["oidc.event": "\(event.kind.rawValue)"]
        switch event.outcome {
        case .success: metadata["oidc.outcome"] = "success"
        case .failure(let code): metadata["oidc.outcome"] = "failure"; metadata["oidc.error"] = "\(code)"
        }
        if let origin = event.origin { metadata["oidc.origin"] = "\(origin)" }
        if let grant = event.grantType { metadata["oidc.grant_type"] = "\(grant)" }
        if let duration = event.duration { metadata["oidc.duration_ms"] = "\(duration.milliseconds)" }
        logger.debug("\(event.kind.rawValue)", metadata: metadata)
    }
}

extension Duration {
    /// Whole milliseconds.
    var milliseconds: Int64 { components.seconds * 1000 + components.attoseconds / 1_000_000_000_000_000 }
}
