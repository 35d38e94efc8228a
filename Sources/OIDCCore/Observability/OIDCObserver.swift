/// Receives the toolkit's ``OIDCEvent``s: the one hook for logs, metrics and traces.
///
/// The toolkit depends on no logging or metrics package; bridge this protocol to swift-log,
/// swift-metrics or a tracer in your app (`Samples/hummingbird-app` shows all three). The default
/// everywhere is no observer: nothing is recorded. `record` is called on the task that did the
/// work and must return quickly (hand slow work to your own queue).
public protocol OIDCObserver: Sendable {
    /// Called once per event, after the thing it describes finished.
    func record(_ event: OIDCEvent)
}
