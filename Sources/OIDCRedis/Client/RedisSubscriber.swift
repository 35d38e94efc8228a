import Foundation
import JOSE

/// One dedicated connection `SUBSCRIBE`d to ``channel`` that wakes the tasks waiting for a payload (a key
/// that changed), on its own thread: waiters are woken by the server's publish/subscribe, not by polling.
///
/// - The socket is read only on this thread (a bounded `poll`, then the pushes), never on Swift's
///   cooperative pool; a waiting caller is a suspended task.
/// - No change is missed unnoticed: a waiter takes a ``Mark`` *before* it reads its key, and
///   ``wait(for:since:timeout:)`` returns at once if anything arrived for its payload since. When the
///   connection drops (or is not subscribed yet) messages may be lost, so every (re)subscription bumps
///   the epoch and wakes every waiter to read its key again.
/// - Opened on first use (one connection beyond the pool's); closed by ``stop()``.
package final class RedisSubscriber: @unchecked Sendable {
    /// The channel every store of this module publishes on (messages name the database number and the key,
    /// since publish/subscribe is shared by every database of a server).
    package static let channel = "oidc-toolkit:changes"

    /// What a waiter saw before reading its key.
    package struct Mark: Sendable, Equatable {
        fileprivate let epoch: UInt64
        fileprivate let version: UInt64
        /// Whether the subscriber was subscribed when the mark was taken (else only a timeout or a reconnection wakes).
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

    private let makeConnection: @Sendable () -> RedisConnection
    private let state = Locked(State())

    init(makeConnection: @escaping @Sendable () -> RedisConnection) { self.makeConnection = makeConnection }

    /// Messages received so far (tests: "woken by PUBLISH").
    package var notificationsReceived: Int { state.withLock { $0.received } }
    /// Waits ended by a message for their payload (tests).
    package var wakesByNotification: Int { state.withLock { $0.wokenByNotification } }
    /// Whether the subscription is up (tests).
    package var isListening: Bool { state.withLock { $0.listening } }
    /// Tasks waiting now (tests).
    package var waiting: Int { state.withLock { $0.waiters.count } }

    /// Starts the thread (once) and returns the current mark for `payload`.
    package func mark(_ payload: String) -> Mark {
        let startNow = state.withLock { state -> Bool in
            defer { state.started = true }
            return !state.started && !state.stopping
        }
        if startNow {
            let thread = Thread { [self] in loop() }
            thread.name = "OIDCRedis subscriber"
            thread.start()
        }
        return state.withLock { Mark(epoch: $0.epoch, version: $0.versions[payload] ?? 0, listening: $0.listening) }
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
    private func deliver(_ payloads: [String]?, listening: Bool) {
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

    private var stopping: Bool { state.withLock { $0.stopping } }

    /// The thread: connect and SUBSCRIBE, then read the pushes; reconnect with a growing pause when it drops.
    private func loop() {
        let connection = makeConnection()
        var pause: UInt32 = 50_000
        while !stopping {
            do {
                try connection.sendOnly([Array("SUBSCRIBE".utf8), Array(Self.channel.utf8)])
                pause = 50_000
            } catch {
                deliver(nil, listening: false)
                usleep(pause)
                pause = min(pause * 2, 2_000_000)
                continue
            }
            while !stopping {
                let push: RedisValue?
                do { push = try connection.nextPush(within: 0.5) } catch { break }  // bounded, so stop() is seen promptly
                guard let push, case .array(let parts) = push, parts.count == 3,
                    let kind = try? parts[0].text("push kind")
                else { continue }
                if kind == "subscribe" {
                    deliver(nil, listening: true)  // subscribed now: whoever waited without it re-reads
                } else if kind == "message", let payload = try? parts[2].text("message") {
                    deliver([payload], listening: true)
                }
            }
            if !stopping {
                connection.close()
                deliver(nil, listening: false)  // messages may have been lost: everyone re-reads
            }
        }
        connection.close()
    }
}
