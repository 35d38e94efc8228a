import Foundation
import JOSE
import OIDCSession

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

    /// What a waiter saw before reading its record.
    package typealias Mark = ChangeWaiters.Mark

    /// The waiters (OIDCSession's one copy of the logic, shared with the other store).
    private let waiters = ChangeWaiters()
    private let makeConnection: @Sendable () -> RedisConnection

    init(makeConnection: @escaping @Sendable () -> RedisConnection) { self.makeConnection = makeConnection }

    /// Announcements received so far (tests).
    package var notificationsReceived: Int { waiters.notificationsReceived }
    /// Waits ended by an announcement for their payload (tests).
    package var wakesByNotification: Int { waiters.wakesByNotification }
    /// Whether the listening connection is up (tests).
    package var isListening: Bool { waiters.isListening }
    /// Tasks waiting now (tests).
    package var waiting: Int { waiters.waiting }

    /// Starts the thread (once) and returns the current mark for `payload`.
    package func mark(_ payload: String) -> Mark {
        if waiters.claimStart() {
            let thread = Thread { [self] in loop() }
            thread.name = "OIDCRedis subscriber"
            thread.start()
        }
        return waiters.mark(payload)
    }

    /// Suspends until an announcement for `payload` (or a reconnection) arrived after `mark` was taken,
    /// `timeout` seconds passed, or the task is cancelled; returns at once if one already did.
    package func wait(for payload: String, since mark: Mark, timeout: Double) async {
        await waiters.wait(for: payload, since: mark, timeout: timeout)
    }

    /// Ends the thread and wakes every waiter.
    package func stop() { waiters.stop() }

    private var stopping: Bool { waiters.isStopping }

    private func deliver(_ payloads: [String]?, listening: Bool) { waiters.deliver(payloads, listening: listening) }

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
