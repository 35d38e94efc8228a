import Foundation
import JOSE

/// What one bounded read of a change feed found.
package enum ChangeFeedRead: Sendable {
    /// Nothing arrived within the wait.
    case nothing
    /// The server confirmed the subscription: whoever waited without it must read again.
    case subscribed
    /// Announcements for these payloads.
    case payloads([String])
}

/// The listening connection of a shared store (PostgreSQL `LISTEN`, Redis `SUBSCRIBE`), used only by a
/// ``ChangeListener``'s thread.
package protocol ChangeFeedConnection: AnyObject, SendableMetatype {
    /// Subscribes to the store's change channel; answers whether the subscription is already confirmed (else a
    /// later read answers ``ChangeFeedRead/subscribed``). Throws when the server cannot be reached.
    func subscribe() throws -> Bool
    /// Waits at most `seconds` for what arrived; throws when the connection dropped.
    func read(within seconds: Double) throws -> ChangeFeedRead
    /// Closes the connection.
    func close()
}

/// One dedicated connection subscribed to a shared store's change channel that wakes the tasks waiting for a
/// payload (a record that changed), on its own thread: waiters are woken by the server's announcements, not by
/// polling. `OIDCPostgres` and `OIDCRedis` both use it.
///
/// - The connection is read only on this thread (bounded waits, so ``stop()`` is seen within half a second),
///   never on Swift's cooperative pool; a waiting caller is a suspended task.
/// - No change is missed unnoticed: a waiter takes a ``Mark`` *before* it reads its record, and
///   ``wait(for:since:timeout:)`` returns at once if anything arrived for its payload since. When the connection
///   drops (or is not subscribed yet) announcements may be lost, so every (re)subscription starts a new epoch and
///   wakes every waiter to read its record again. A dropped connection is reopened after a pause that grows from
///   50 ms to 2 s.
/// - Opened on first use (one connection beyond the pool's); closed by ``stop()``.
package final class ChangeListener: @unchecked Sendable {
    /// What a waiter saw before reading its record.
    package typealias Mark = ChangeWaiters.Mark

    private let waiters = ChangeWaiters()
    private let threadName: String
    private let makeConnection: @Sendable () -> any ChangeFeedConnection

    /// A listener whose thread, named `threadName`, opens its connection with `makeConnection` on first use.
    package init(threadName: String, makeConnection: @escaping @Sendable () -> any ChangeFeedConnection) {
        self.threadName = threadName
        self.makeConnection = makeConnection
    }

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
            thread.name = threadName
            thread.start()
        }
        return waiters.mark(payload)
    }

    /// Suspends until an announcement for `payload` (or a resubscription) arrived after `mark` was taken,
    /// `timeout` seconds passed, or the task is cancelled; returns at once if one already did.
    package func wait(for payload: String, since mark: Mark, timeout: Double) async {
        await waiters.wait(for: payload, since: mark, timeout: timeout)
    }

    /// Ends the thread and wakes every waiter.
    package func stop() { waiters.stop() }

    /// The thread: subscribe, then read; reconnect with a growing pause when the connection drops.
    private func loop() {
        let connection = makeConnection()
        var pause: UInt32 = 50_000
        while !waiters.isStopping {
            do {
                if try connection.subscribe() { waiters.deliver(nil, listening: true) }  // whoever waited without it re-reads
                pause = 50_000
            } catch {
                waiters.deliver(nil, listening: false)
                usleep(pause)
                pause = min(pause * 2, 2_000_000)
                continue
            }
            while !waiters.isStopping {
                let read: ChangeFeedRead
                do { read = try connection.read(within: 0.5) } catch { break }
                switch read {
                case .nothing: continue
                case .subscribed: waiters.deliver(nil, listening: true)
                case .payloads(let payloads): if !payloads.isEmpty { waiters.deliver(payloads, listening: true) }
                }
            }
            if !waiters.isStopping {
                connection.close()
                waiters.deliver(nil, listening: false)  // announcements may have been lost: everyone re-reads
            }
        }
        connection.close()
    }
}
