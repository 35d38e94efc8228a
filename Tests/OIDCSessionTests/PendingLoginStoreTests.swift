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
        try await store.save(Pending(verifier: "v1", nonce: "n1"), key: "state-1", expiresIn: 600)
        #expect(try await store.consume(key: "state-1", as: Pending.self) == Pending(verifier: "v1", nonce: "n1"))
        await expectCode(.pendingLoginNotFound) { _ = try await store.consume(key: "state-1", as: Pending.self) }
        await expectCode(.pendingLoginNotFound) { _ = try await store.consume(key: "never-saved", as: Pending.self) }
        await expectCode(.pendingLoginNotFound) { _ = try await store.consumeBytes(key: "") }
    }

    @Test("an expired entry is refused, then gone", arguments: Kind.allCases)
    func expiredRefused(kind: Kind) async throws {
        let folder = Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let clock = ManualClock()
        let store = makeStore(kind, folder: folder, clock: clock)
        try await store.save(Pending(verifier: "v", nonce: "n"), key: "old", expiresIn: 60)
        clock.advance(61)
        await expectCode(.pendingLoginExpired) { _ = try await store.consume(key: "old", as: Pending.self) }
        await expectCode(.pendingLoginNotFound) { _ = try await store.consume(key: "old", as: Pending.self) }
    }

    @Test("a state saved twice, a lifetime out of range and a wrong type are refused", arguments: Kind.allCases)
    func refusals(kind: Kind) async throws {
        let folder = Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let store = makeStore(kind, folder: folder, clock: ManualClock())
        try await store.save(Pending(verifier: "v", nonce: "n"), key: "dup", expiresIn: 60)
        await expectCode(.pendingLoginExists) { try await store.save(Pending(verifier: "w", nonce: "m"), key: "dup", expiresIn: 60) }
        for lifetime in [Double.nan, .infinity, 0, -1, 86_401] {
            await expectCode(.pendingLoginUnreadable) { try await store.save(Pending(verifier: "v", nonce: "n"), key: "x", expiresIn: lifetime) }
        }
        await expectCode(.pendingLoginUnreadable) { _ = try await store.consume(key: "dup", as: [Int].self) }
    }

    @Test("20 concurrent callbacks with one state: exactly one gets the login", arguments: Kind.allCases)
    func concurrentConsumers(kind: Kind) async throws {
        let folder = Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let clock = ManualClock()
        let store = makeStore(kind, folder: folder, clock: clock)
        try await store.save(Pending(verifier: "v", nonce: "n"), key: "race", expiresIn: 600)
        // For the file store, each consumer is a store of its own, as in separate processes.
        let outcomes = await withTaskGroup(of: String.self) { group in
            for _ in 0..<20 {
                let consumer = kind == .file ? FilePendingLoginStore(folder: folder, clock: clock.read) : store
                group.addTask {
                    do { _ = try await consumer.consume(key: "race", as: Pending.self); return "won" } catch let error as OIDCError {
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
        try await store.saveBytes([1], key: "a", expiresIn: 10, scope: nil)
        try await store.saveBytes([2], key: "b", expiresIn: 100, scope: nil)
        await expectCode(.pendingLoginStoreFull) { try await store.saveBytes([3], key: "c", expiresIn: 10, scope: nil) }
        clock.advance(11)  // "a" expires: room for one more
        try await store.saveBytes([3], key: "c", expiresIn: 10, scope: nil)
        #expect(await store.count == 2)
        #expect(try await store.consumeBytes(key: "b") == [2])
    }

    @Test("the file store keeps entries private: folder 0700, files 0600, named by a hash of state")
    func filePermissions() async throws {
        let folder = Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let store = FilePendingLoginStore(folder: folder)
        try await store.save(Pending(verifier: "secret-verifier", nonce: "n"), key: "visible-state", expiresIn: 600)
        let folderMode = try #require(try FileManager.default.attributesOfItem(atPath: folder)[.posixPermissions] as? Int)
        #expect(folderMode == 0o700)
        let names = try FileManager.default.contentsOfDirectory(atPath: folder)
        #expect(names.count == 1)  // no temporary file left behind
        let name = try #require(names.first)
        #expect(!name.contains("visible-state") && name.count == 64)
        let fileMode = try #require(try FileManager.default.attributesOfItem(atPath: folder + "/" + name)[.posixPermissions] as? Int)
        #expect(fileMode == 0o600)
        _ = try await store.consume(key: "visible-state", as: Pending.self)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder).isEmpty)
    }

    @Test("the file store refuses a folder other users can open, and an entry made readable by others")
    func fileRefusesOpenFolder() async throws {
        let folder = Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o755])
        let store = FilePendingLoginStore(folder: folder)
        await expectCode(.tokenFileTooOpen) { try await store.saveBytes([1], key: "s", expiresIn: 60, scope: nil) }
        try FileManager.default.setAttributes([.posixPermissions: 0o700], ofItemAtPath: folder)
        try await store.saveBytes([1], key: "s", expiresIn: 60, scope: nil)
        let name = try #require(try FileManager.default.contentsOfDirectory(atPath: folder).first)
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: folder + "/" + name)
        await expectCode(.tokenFileTooOpen) { _ = try await store.consumeBytes(key: "s") }
    }

    @Test("the file store deletes expired entries when saving")
    func filePurgesExpired() async throws {
        let folder = Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let clock = ManualClock()
        let store = FilePendingLoginStore(folder: folder, clock: clock.read)
        try await store.saveBytes([1], key: "first", expiresIn: 10, scope: nil)
        clock.advance(11)
        try await store.saveBytes([2], key: "second", expiresIn: 10, scope: nil)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder).count == 1)
        #expect(try await store.consumeBytes(key: "second") == [2])
    }

    @Test("a flood of saves under one scope fills only its share: a save under another scope is still accepted")
    func memoryScopeShares() async throws {
        let store = InMemoryPendingLoginStore(capacity: 1_000, capacityPerScope: 100, clock: ManualClock().read)
        var refused: [String] = []
        for index in 0..<1_000 {  // one client's flood: ten times its share, as many as the whole store holds
            do { try await store.saveBytes([1], key: "flood-\(index)", expiresIn: 600, scope: "203.0.113.9") } catch let error as OIDCError {
                refused.append(error.code.rawValue)
            }
        }
        #expect(refused.count == 900)
        #expect(refused.allSatisfy { $0 == OIDCError.Code.pendingLoginStoreFull.rawValue })
        #expect(await store.count(scope: "203.0.113.9") == 100)
        #expect(await store.hasRoom(scope: "203.0.113.9") == false)
        #expect(await store.hasRoom(scope: "198.51.100.7"))
        #expect(await store.hasRoom(scope: nil))
        // Another client's login starts and finishes.
        try await store.saveBytes([2], key: "honest", expiresIn: 600, scope: "198.51.100.7")
        #expect(try await store.consumeBytes(key: "honest") == [2])
        // The flooding scope gets a place back only as its own logins finish.
        await expectCode(.pendingLoginStoreFull) { try await store.saveBytes([3], key: "flood-again", expiresIn: 600, scope: "203.0.113.9") }
        _ = try await store.consumeBytes(key: "flood-0")
        try await store.saveBytes([3], key: "flood-again", expiresIn: 600, scope: "203.0.113.9")
        // Through the protocol (the app holds `any PendingLoginStore`), the scope reaches the store.
        let anyStore: any PendingLoginStore = store
        await expectCode(.pendingLoginStoreFull) {
            try await anyStore.save(Pending(verifier: "v", nonce: "n"), key: "flood-protocol", expiresIn: 600, scope: "203.0.113.9")
        }
    }

    @Test("the total capacity still bounds saves under many scopes, and saves without a scope")
    func memoryScopesWithinCapacity() async throws {
        let store = InMemoryPendingLoginStore(capacity: 10, capacityPerScope: 4, clock: ManualClock().read)
        for index in 0..<8 { try await store.saveBytes([1], key: "s\(index)", expiresIn: 60, scope: "scope-\(index % 2)") }
        try await store.saveBytes([1], key: "unscoped-1", expiresIn: 60, scope: nil)
        try await store.saveBytes([1], key: "scoped-9", expiresIn: 60, scope: "scope-9")
        await expectCode(.pendingLoginStoreFull) { try await store.saveBytes([1], key: "unscoped-2", expiresIn: 60, scope: nil) }
        await expectCode(.pendingLoginStoreFull) { try await store.saveBytes([1], key: "scoped-10", expiresIn: 60, scope: "scope-10") }
        #expect(await store.count == 10)
    }

    @Test("a save examines only what has expired, never every entry (no rebuild of the store per save)")
    func memorySaveCostIsNotLinear() async throws {
        let clock = ManualClock()
        let store = InMemoryPendingLoginStore(capacity: 10_000, clock: clock.read)
        for index in 0..<2_000 { try await store.saveBytes([1], key: "live-\(index)", expiresIn: 600, scope: nil) }
        // 2 000 saves with nothing expired: nothing examined (a scan per save would be ~2 million).
        #expect(await store.expiryWork == 0)
        clock.advance(300)
        for index in 0..<1_000 { try await store.saveBytes([2], key: "later-\(index)", expiresIn: 600, scope: nil) }
        #expect(await store.expiryWork == 0)
        clock.advance(301)  // the first 2 000 expire, the next 1 000 do not
        try await store.saveBytes([3], key: "after", expiresIn: 600, scope: nil)
        #expect(await store.expiryWork == 2_000)
        #expect(await store.count == 1_001)
        for index in 0..<1_000 { try await store.saveBytes([4], key: "more-\(index)", expiresIn: 600, scope: nil) }
        #expect(await store.expiryWork == 2_000)
        // Logins that start and finish: the work stays proportional to the operations, not to their product.
        for index in 0..<3_000 {
            try await store.saveBytes([5], key: "churn-\(index)", expiresIn: 60, scope: nil)
            _ = try await store.consumeBytes(key: "churn-\(index)")
        }
        clock.advance(61)
        try await store.saveBytes([6], key: "last", expiresIn: 600, scope: nil)
        let work = await store.expiryWork
        #expect(work <= 2_000 + 3 * 3_000, "expiry work \(work) for 7 002 saves and 3 000 consumes")
        #expect(await store.count == 2_002)
    }

    @Test("the in-memory store agrees with a plain model on a seeded mix of saves, consumes and time")
    func memoryAgreesWithModel() async throws {
        struct Model {
            var entries: [String: (bytes: [UInt8], expiresAt: Date, scope: String?)] = [:]
            mutating func save(
                _ bytes: [UInt8], key state: String, expiresIn: Double, scope: String?, now: Date,
                capacity: Int, perScope: Int
            ) -> String {
                entries = entries.filter { $0.value.expiresAt > now }
                if entries[state] != nil { return OIDCError.Code.pendingLoginExists.rawValue }
                if entries.count >= capacity { return OIDCError.Code.pendingLoginStoreFull.rawValue }
                if let scope, entries.values.filter({ $0.scope == scope }).count >= perScope { return OIDCError.Code.pendingLoginStoreFull.rawValue }
                entries[state] = (bytes, now.addingTimeInterval(expiresIn), scope)
                return "saved"
            }
            mutating func consume(_ state: String, now: Date) -> String {
                guard let entry = entries.removeValue(forKey: state) else { return OIDCError.Code.pendingLoginNotFound.rawValue }
                return entry.expiresAt > now ? "bytes \(entry.bytes)" : OIDCError.Code.pendingLoginExpired.rawValue
            }
        }
        var generator = SplitMix(seed: 36)
        let clock = ManualClock()
        let store = InMemoryPendingLoginStore(capacity: 40, capacityPerScope: 12, clock: clock.read)
        var model = Model()
        for step in 0..<20_000 {
            let state = "s\(generator.next() % 64)"
            switch generator.next() % 10 {
            case 0..<5:
                let scopes: [String?] = [nil, "a", "b", "c"]
                let scope = scopes[Int(generator.next() % 4)]
                let lifetime = Double(1 + generator.next() % 30)
                let expected = model.save(
                    [UInt8(step % 256)], key: state, expiresIn: lifetime, scope: scope, now: clock.now,
                    capacity: 40, perScope: 12)
                var got = "saved"
                do { try await store.saveBytes([UInt8(step % 256)], key: state, expiresIn: lifetime, scope: scope) } catch let error as OIDCError {
                    got = error.code.rawValue
                }
                #expect(got == expected, "step \(step): save \(state)")
            case 5..<9:
                let expected = model.consume(state, now: clock.now)
                var got: String
                do { got = "bytes \(try await store.consumeBytes(key: state))" } catch let error as OIDCError { got = error.code.rawValue }
                #expect(got == expected, "step \(step): consume \(state)")
            default:
                clock.advance(Double(generator.next() % 5))
            }
            if step % 1_000 == 999 {
                for scope in ["a", "b", "c"] {
                    let live = await store.count(scope: scope)
                    #expect(live == model.entries.values.filter { $0.scope == scope }.count, "step \(step): scope \(scope)")
                }
            }
        }
    }
}

/// A small seeded generator (SplitMix64), so a failing sequence can be replayed.
private struct SplitMix {
    private var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE5_E4B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
