import Logging
import OIDC

/// The toolkit's events into swift-log, at the levels the Swift server guides give libraries:
/// successes at `trace`, failures at `debug` (the app logs what it does about a failure at
/// `info`/`warning` itself); `--log-level` decides what is shown. Events carry no secrets
/// (OIDCEvent's guarantee: no token, code, key or full URL), so they are logged whole.
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
        switch event.outcome {
        case .success: logger.trace("\(event.kind.rawValue)", metadata: metadata)
        case .failure: logger.debug("\(event.kind.rawValue)", metadata: metadata)
        }
    }
}

extension Duration {
    /// Whole milliseconds.
    var milliseconds: Int64 { components.seconds * 1000 + components.attoseconds / 1_000_000_000_000_000 }
}
