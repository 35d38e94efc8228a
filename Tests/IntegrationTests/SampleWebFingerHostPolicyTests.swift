import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A TCP listener on 127.0.0.1 that only counts connections: a test asks it, after the process under test has
/// exited, whether anything connected.
final class ConnectionWitness: @unchecked Sendable {
    let port: Int
    private let socketFD: Int32

    init() throws {
        #if canImport(Glibc)
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
        let fd = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        try #require(fd >= 0, "socket() failed")
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0  // any free port
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, listen(fd, 16) == 0 else { close(fd); throw POSIXError(.EADDRINUSE) }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        socketFD = fd
        port = Int(UInt16(bigEndian: address.sin_port))
    }

    deinit { close(socketFD) }

    /// Waits on a thread of its own (not Swift's cooperative pool) for one connection until `deadline`
    /// milliseconds have passed; accepts and closes it at once. Whether one came.
    func acceptOne(deadlineMilliseconds: Int32) async -> Bool {
        await withCheckedContinuation { continuation in
            let thread = Thread { [self] in
                var entry = pollfd(fd: socketFD, events: Int16(POLLIN), revents: 0)
                guard poll(&entry, 1, deadlineMilliseconds) == 1 else { continuation.resume(returning: false); return }
                let connection = accept(socketFD, nil, nil)
                if connection >= 0 { close(connection) }
                continuation.resume(returning: connection >= 0)
            }
            thread.start()
        }
    }
}

/// `sample-authorize-url --webfinger acct:alice@127.0.0.1:PORT` (issue 36): refused as `webfinger_host_refused`
/// before any request without `--allow-host`; with `--allow-host 127.0.0.1:PORT` it does connect to PORT.
@Suite("sample-authorize-url: the WebFinger fetch policy")
struct SampleWebFingerHostPolicyTests {
    static let common = ["--client-id", "c", "--redirect-uri", "https://app.example/cb"]

    @Test("without --allow-host: exit 1, webfinger_host_refused, nothing connects to PORT")
    func loopbackRefusedWithoutConnecting() async throws {
        let witness = try ConnectionWitness()
        let result = try await SampleRunner.run("sample-authorize-url", ["--webfinger", "acct:alice@127.0.0.1:\(witness.port)"] + Self.common)
        #expect(result.status == 1, "\(result.error)")
        #expect(result.error.hasPrefix("sample-authorize-url: webfinger_host_refused: "), "\(result.error)")
        #expect(result.output.isEmpty)
        // The process has exited: a connection it made would already wait in the listen queue.
        #expect(await witness.acceptOne(deadlineMilliseconds: 1000) == false, "the sample connected to port \(witness.port)")
        // The other spellings of a loopback host are refused the same way.
        for host in ["localhost", "127.1", "2130706433", "[::1]", "[::ffff:127.0.0.1]"] {
            let other = try await SampleRunner.run("sample-authorize-url", ["--webfinger", "acct:alice@\(host):\(witness.port)"] + Self.common)
            #expect(other.status == 1 && other.error.contains("webfinger_host_refused"), "\(host): \(other.error)")
        }
        #expect(await witness.acceptOne(deadlineMilliseconds: 1000) == false)
    }

    @Test("with --allow-host 127.0.0.1:PORT the query is sent to PORT (the listener sees it; no TLS there: transport failure)")
    func allowHostAdmitsTheLoopbackPort() async throws {
        let witness = try ConnectionWitness()
        async let connected = witness.acceptOne(deadlineMilliseconds: 60_000)
        let result = try await SampleRunner.run(
            "sample-authorize-url",
            [
                "--webfinger", "acct:alice@127.0.0.1:\(witness.port)",
                "--allow-host", "127.0.0.1:\(witness.port)",
            ] + Self.common)
        #expect(await connected, "the sample did not connect to the admitted port")
        #expect(result.status == 1, "\(result.error)")
        #expect(result.error.contains("webfinger_transport_failed"), "\(result.error)")
        // The entry admits that port only.
        let otherPort = try await SampleRunner.run(
            "sample-authorize-url",
            [
                "--webfinger", "acct:alice@127.0.0.1:\(witness.port)",
                "--allow-host", "127.0.0.1:\(witness.port == 1 ? 2 : 1)",
            ] + Self.common)
        #expect(otherPort.status == 1 && otherPort.error.contains("webfinger_host_refused"), "\(otherPort.error)")
        #expect(await witness.acceptOne(deadlineMilliseconds: 1000) == false)
    }
}
