import Foundation
import OIDC
import OIDCSession
import Testing

/// What every pending-login store must do, run against the in-memory and the file store.
@Suite("Pending-login stores (one process)")
struct PendingLoginStoreTests {
    struct Pending: Codable, Equatable { let verifier: String; let nonce: String }

    enum Kind: String, CaseIterable, CustomStringConvertible {
        case memory, file
        var description: String { rawValue }
    }

    static func temporaryFolder() -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("pending-\(UUID().uuidString)").path
    }

    func makeStore(_ kind: Kind, folder: String, clock: ManualClock) -> any PendingLoginStore {
        switch kind {
        case .memory: return InMemoryPendingLoginStore(clock: clock.read)
        case .file: return FilePendingLoginStore(folder: folder, clock: clock.read)
        }
    }

    func expectCode(_ code: OIDCError.Code, _ body: () async throws -> Void) async {
        do {
            try await body()
            Issue.record("expected \(code.rawValue), got success")
        } catch let error as OIDCError {
            #expect(error.code == code, "got \(error.code.rawValue): \(error.reason)")
        } catch {
            Issue.record("expected an OIDCError, got \(error)")
        }
    }

    @Test("saved, consumed once; a replayed state is pending_login_not_found", arguments: Kind.allCases)
    func consumedOnce(kind: Kind) async throws {
        let folder = Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let store = makeStore(kind, folder: folder, clock: ManualClock())
        try await store.save(Pending(verifier: "v1", nonce: "n1"), state: "state-1", expiresIn: 600)
        #expect(try await store.consume(state: "state-1", as: Pending.self) == Pending(verifier: "v1", nonce: "n1"))
        await expectCode(.pendingLoginNotFound) { _ = try await store.consume(state: "state-1", as: Pending.self) }
        await expectCode(.pendingLoginNotFound) { _ = try await store.consume(state: "never-saved", as: Pending.self) }
        await expectCode(.pendingLoginNotFound) { _ = try await store.consumeBytes(state: "") }
    }

    @Test("an expired entry is refused, then gone", arguments: Kind.allCases)
    func expiredRefused(kind: Kind) async throws {
        let folder = Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let clock = ManualClock()
        let store = makeStore(kind, folder: folder, clock: clock)
        try await store.save(Pending(verifier: "v", nonce: "n"), state: "old", expiresIn: 60)
        clock.advance(61)
        await expectCode(.pendingLoginExpired) { _ = try await store.consume(state: "old", as: Pending.self) }
        await expectCode(.pendingLoginNotFound) { _ = try await store.consume(state: "old", as: Pending.self) }
    }

    @Test("a state saved twice, a lifetime out of range and a wrong type are refused", arguments: Kind.allCases)
    func refusals(kind: Kind) async throws {
        let folder = Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let store = makeStore(kind, folder: folder, clock: ManualClock())
        try await store.save(Pending(verifier: "v", nonce: "n"), state: "dup", expiresIn: 60)
        await expectCode(.pendingLoginExists) { try await store.save(Pending(verifier: "w", nonce: "m"), state: "dup", expiresIn: 60) }
        for lifetime in [Double.nan, .infinity, 0, -1, 86_401] {
            await expectCode(.pendingLoginUnreadable) { try await store.save(Pending(verifier: "v", nonce: "n"), state: "x", expiresIn: lifetime) }
        }
        await expectCode(.pendingLoginUnreadable) { _ = try await store.consume(state: "dup", as: [Int].self) }
    }

    @Test("20 concurrent callbacks with one state: exactly one gets the login", arguments: Kind.allCases)
    func concurrentConsumers(kind: Kind) async throws {
        let folder = Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let clock = ManualClock()
        let store = makeStore(kind, folder: folder, clock: clock)
        try await store.save(Pending(verifier: "v", nonce: "n"), state: "race", expiresIn: 600)
        // For the file store, each consumer is a store of its own, as in separate processes.
        let outcomes = await withTaskGroup(of: String.self) { group in
            for _ in 0..<20 {
                let consumer = kind == .file ? FilePendingLoginStore(folder: folder, clock: clock.read) : store
                group.addTask {
                    do { _ = try await consumer.consume(state: "race", as: Pending.self); return "won" } catch let error as OIDCError {
                        return error.code.rawValue
                    } catch { return "other" }
                }
            }
            return await group.reduce(into: []) { $0.append($1) }
        }
        #expect(outcomes.filter { $0 == "won" }.count == 1)
        #expect(outcomes.filter { $0 == OIDCError.Code.pendingLoginNotFound.rawValue }.count == 19)
    }

    @Test("the in-memory store refuses a save beyond its capacity, after dropping expired entries")
    func memoryCapacity() async throws {
        let clock = ManualClock()
        let store = InMemoryPendingLoginStore(capacity: 2, clock: clock.read)
        try await store.saveBytes([1], state: "a", expiresIn: 10)
        try await store.saveBytes([2], state: "b", expiresIn: 100)
        await expectCode(.pendingLoginUnreadable) { try await store.saveBytes([3], state: "c", expiresIn: 10) }
        clock.advance(11)  // "a" expires: room for one more
        try await store.saveBytes([3], state: "c", expiresIn: 10)
        #expect(await store.count == 2)
        #expect(try await store.consumeBytes(state: "b") == [2])
    }

    @Test("the file store keeps entries private: folder 0700, files 0600, named by a hash of state")
    func filePermissions() async throws {
        let folder = Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let store = FilePendingLoginStore(folder: folder)
        try await store.save(Pending(verifier: "secret-verifier", nonce: "n"), state: "visible-state", expiresIn: 600)
        let folderMode = try #require(try FileManager.default.attributesOfItem(atPath: folder)[.posixPermissions] as? Int)
        #expect(folderMode == 0o700)
        let names = try FileManager.default.contentsOfDirectory(atPath: folder)
        #expect(names.count == 1)  // no temporary file left behind
        let name = try #require(names.first)
        #expect(!name.contains("visible-state") && name.count == 64)
        let fileMode = try #require(try FileManager.default.attributesOfItem(atPath: folder + "/" + name)[.posixPermissions] as? Int)
        #expect(fileMode == 0o600)
        _ = try await store.consume(state: "visible-state", as: Pending.self)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder).isEmpty)
    }

    @Test("the file store refuses a folder other users can open, and an entry made readable by others")
    func fileRefusesOpenFolder() async throws {
        let folder = Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o755])
        let store = FilePendingLoginStore(folder: folder)
        await expectCode(.tokenFileTooOpen) { try await store.saveBytes([1], state: "s", expiresIn: 60) }
        try FileManager.default.setAttributes([.posixPermissions: 0o700], ofItemAtPath: folder)
        try await store.saveBytes([1], state: "s", expiresIn: 60)
        let name = try #require(try FileManager.default.contentsOfDirectory(atPath: folder).first)
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: folder + "/" + name)
        await expectCode(.tokenFileTooOpen) { _ = try await store.consumeBytes(state: "s") }
    }

    @Test("the file store deletes expired entries when saving")
    func filePurgesExpired() async throws {
        let folder = Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let clock = ManualClock()
        let store = FilePendingLoginStore(folder: folder, clock: clock.read)
        try await store.saveBytes([1], state: "first", expiresIn: 10)
        clock.advance(11)
        try await store.saveBytes([2], state: "second", expiresIn: 10)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder).count == 1)
        #expect(try await store.consumeBytes(state: "second") == [2])
    }
}
