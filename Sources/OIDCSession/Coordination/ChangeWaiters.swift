import JOSE

/// The waiting side of a shared store's change announcements (PostgreSQL's `LISTEN`/`NOTIFY`, Redis's
/// `SUBSCRIBE`/`PUBLISH`), one copy for both: tasks wait for a payload (a record that changed), and the
/// listening thread delivers what arrived.
///
/// - No change is missed unnoticed: a waiter takes a ``Mark`` *before* it reads its record, and
///   ``wait(for:since:timeout:)`` returns at once if anything arrived for its payload since. When the listening
///   connection drops (or is not listening yet) announcements may be lost, so every (re)connection delivers a
///   new epoch and wakes every waiter to read its record again.
package final class ChangeWaiters: @unchecked Sendable {
    /// What a waiter saw before reading its record.
    package struct Mark: Sendable, Equatable {
        fileprivate let epoch: UInt64
        fileprivate let version: UInt64
        /// Whether the connection was listening when the mark was taken (else only a timeout or a reconnection wakes).
        package let listening: Bool
    }

    private struct Waiter {
        let payload: String
        let mark: Mark
        let continuation: CheckedContinuation<Void, Never>
    }

    private struct State {
        var started = false
        var stopping = false
        var listening = false
        var epoch: UInt64 = 0
        var versions: [String: UInt64] = [:]
        var waiters: [UInt64: Waiter] = [:]
        var fired: Set<UInt64> = []
        var pending: Set<UInt64> = []
        var nextID: UInt64 = 0
        var received = 0
        var wokenByNotification = 0
    }

    private let state = Locked(State())

    package init() {}

    /// Announcements received so far (tests).
    package var notificationsReceived: Int { state.withLock { $0.received } }
    /// Waits ended by an announcement for their payload (tests).
    package var wakesByNotification: Int { state.withLock { $0.wokenByNotification } }
    /// Whether the listening connection is up (tests).
    package var isListening: Bool { state.withLock { $0.listening } }
    /// Tasks waiting now (tests).
    package var waiting: Int { state.withLock { $0.waiters.count } }

    /// The current mark for `payload`.
    package func mark(_ payload: String) -> Mark {
        state.withLock { Mark(epoch: $0.epoch, version: $0.versions[payload] ?? 0, listening: $0.listening) }
    }

    /// Whether ``stop()`` was called.
    package var isStopping: Bool { state.withLock { $0.stopping } }

    /// Marks the start of the listening thread; `true` for the first caller only (who starts it).
    package func claimStart() -> Bool {
        state.withLock { state -> Bool in
            defer { state.started = true }
            return !state.started && !state.stopping
        }
    }

    /// Suspends until a notification for `payload` (or a reconnection) arrived after `mark` was taken,
    /// `timeout` seconds passed, or the task is cancelled; returns at once if one already did.
    package func wait(for payload: String, since mark: Mark, timeout: Double) async {
        let id = state.withLock { state -> UInt64 in
            state.nextID &+= 1
            state.pending.insert(state.nextID)
            return state.nextID
        }
        let timer = Task { [self] in
            do { try await Task.sleep(nanoseconds: UInt64(max(0, min(timeout.isNaN ? 0 : timeout, 86_400)) * 1e9)) } catch { return }
            wake(id)
        }
        defer {
            timer.cancel()
            state.withLock { state in
                state.fired.remove(id)
                state.pending.remove(id)
                state.waiters.removeValue(forKey: id)
            }
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let resumeNow = state.withLock { state -> Bool in
                    let current = Mark(epoch: state.epoch, version: state.versions[payload] ?? 0, listening: state.listening)
                    if state.fired.remove(id) != nil { return true }
                    if current.epoch != mark.epoch || current.version != mark.version || state.stopping { return true }
                    state.waiters[id] = Waiter(payload: payload, mark: mark, continuation: continuation)
                    return false
                }
                if resumeNow { continuation.resume() }
            }
        } onCancel: {
            wake(id)
        }
    }

    /// Ends the thread and wakes every waiter.
    package func stop() {
        let waiters = state.withLock { state -> [Waiter] in
            state.stopping = true
            defer { state.waiters = [:] }
            return Array(state.waiters.values)
        }
        for waiter in waiters { waiter.continuation.resume() }
    }

    private func wake(_ id: UInt64) {
        let waiter = state.withLock { state -> Waiter? in
            guard let waiter = state.waiters.removeValue(forKey: id) else {
                if state.pending.contains(id) { state.fired.insert(id) }  // not registered yet: it returns at once when it is
                return nil
            }
            return waiter
        }
        waiter?.continuation.resume()
    }

    /// Records `payloads` (or, with `nil`, a new epoch: everyone re-reads) and resumes the waiters concerned.
    package func deliver(_ payloads: [String]?, listening: Bool) {
        let woken = state.withLock { state -> [Waiter] in
            state.listening = listening
            if let payloads {
                state.received += payloads.count
                for payload in payloads { state.versions[payload, default: 0] &+= 1 }
                if state.versions.count > 10_000 {  // bounded: forgetting versions only costs a wake-up (the epoch moves)
                    state.versions = [:]
                    state.epoch &+= 1
                }
            } else {
                state.epoch &+= 1
            }
            let ids = state.waiters.filter { _, waiter in
                waiter.mark.epoch != state.epoch || waiter.mark.version != (state.versions[waiter.payload] ?? 0)
            }.map(\.key)
            let woken = ids.compactMap { state.waiters.removeValue(forKey: $0) }
            if payloads != nil { state.wokenByNotification += woken.count }
            return woken
        }
        for waiter in woken { waiter.continuation.resume() }
    }

}
