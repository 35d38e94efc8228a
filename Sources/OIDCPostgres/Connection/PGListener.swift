import Foundation
import JOSE
import OIDCSession

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One dedicated connection that `LISTEN`s on ``channel`` and wakes the tasks waiting for a
/// notification payload (a row that changed), on its own thread.
///
/// - libpq runs only on this thread (`poll` on the socket, then `PQconsumeInput`/`PQnotifies`),
///   never on Swift's cooperative pool; a waiting caller is a suspended task.
/// - No notification is missed unnoticed: a waiter takes a ``Mark`` *before* it reads the row, and
///   ``wait(for:since:timeout:)`` returns at once if anything arrived for its payload since. When
///   the connection drops (or is not listening yet) notifications may be lost, so every
///   (re)connection bumps ``epoch`` and wakes every waiter to read its row again.
/// - Opened on first use (one connection beyond the pool's); closed by ``stop()``.
package final class PGListener: @unchecked Sendable {
    /// The channel every store of this module notifies on.
    package static let channel = "oidc_toolkit_rows"

    /// What a waiter saw before reading its record.
    package typealias Mark = ChangeWaiters.Mark

    /// The waiters (OIDCSession's one copy of the logic, shared with the other store).
    private let waiters = ChangeWaiters()
    private let conninfo: String

    init(conninfo: String) { self.conninfo = conninfo }

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
            thread.name = "OIDCPostgres listener"
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

    /// The thread: connect and LISTEN, then poll the socket; reconnect with a growing pause when it drops.
    private func loop() {
        let connection = PGConnection(conninfo: conninfo)
        var pause: UInt32 = 50_000
        while !stopping {
            do {
                _ = try connection.execute("LISTEN \(Self.channel)")
                pause = 50_000
                deliver(nil, listening: true)  // listening now: whoever waited without it re-reads
            } catch {
                deliver(nil, listening: false)
                usleep(pause)
                pause = min(pause * 2, 2_000_000)
                continue
            }
            while !stopping {
                guard let socket = connection.socket else { break }
                var descriptor = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
                let ready = poll(&descriptor, 1, 500)  // a bounded wait, so stop() is seen promptly
                if ready < 0 && errno != EINTR { break }
                if ready <= 0 { continue }
                guard let payloads = connection.consumeNotifications(channel: Self.channel) else { break }
                if !payloads.isEmpty { deliver(payloads, listening: true) }
            }
            if !stopping {
                connection.close()
                deliver(nil, listening: false)  // notifications may have been lost: everyone re-reads
            }
        }
        connection.close()
    }
}
