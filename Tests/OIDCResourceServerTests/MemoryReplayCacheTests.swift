import Foundation
import OIDCResourceServer
import Testing

/// The in-memory replay cache: live entries refused, expired ones dropped soonest first (never a scan),
/// bounded by its capacity, checked against a plain model on a seeded random workload.
@Suite("MemoryReplayCache")
struct MemoryReplayCacheTests {
    static let t0 = Date(timeIntervalSince1970: 1_800_000_000)

    @Test("a second use is refused until the first's expiry, accepted after it; scopes are separate")
    func replayWindow() {
        let cache = MemoryReplayCache()
        #expect(cache.recordFirstUse(of: "a", scope: "k1", until: Self.t0 + 60, now: Self.t0))
        #expect(!cache.recordFirstUse(of: "a", scope: "k1", until: Self.t0 + 120, now: Self.t0 + 59))
        #expect(cache.recordFirstUse(of: "a", scope: "k2", until: Self.t0 + 60, now: Self.t0 + 59))
        #expect(cache.recordFirstUse(of: "a", scope: "k1", until: Self.t0 + 200, now: Self.t0 + 60))
        #expect(!cache.recordFirstUse(of: "a", scope: "k1", until: Self.t0 + 300, now: Self.t0 + 199))
    }

    @Test("full of live entries, a new identifier is refused; once one expires, there is room again")
    func capacity() {
        let cache = MemoryReplayCache(capacity: 3)
        for (i, life) in [30.0, 10, 20].enumerated() {
            #expect(cache.recordFirstUse(of: "j\(i)", scope: "s", until: Self.t0 + life, now: Self.t0))
        }
        #expect(!cache.recordFirstUse(of: "j3", scope: "s", until: Self.t0 + 40, now: Self.t0 + 9))
        #expect(cache.recordFirstUse(of: "j3", scope: "s", until: Self.t0 + 40, now: Self.t0 + 10))  // j1 expired at +10
        #expect(!cache.recordFirstUse(of: "j0", scope: "s", until: Self.t0 + 40, now: Self.t0 + 10))  // still live
        #expect(!cache.recordFirstUse(of: "j4", scope: "s", until: Self.t0 + 40, now: Self.t0 + 19))
        #expect(cache.count == 3)
    }

    @Test("entries leave at their expiry, so a steady stream never fills the cache")
    func steadyStream() {
        let cache = MemoryReplayCache(capacity: 1000)
        for second in 0..<10_000 {
            let now = Self.t0 + TimeInterval(second)
            #expect(cache.recordFirstUse(of: "jti-\(second)", scope: "s", until: now + 100, now: now))
        }
        #expect(cache.count <= 101)
    }

    @Test("a seeded random workload answers exactly as a plain dictionary that forgets at expiry")
    func matchesModel() {
        var random = SplitMix(seed: 0x5eed)
        let cache = MemoryReplayCache(capacity: 64)
        var model: [String: Date] = [:]
        var now = Self.t0
        var refusedForRoom = 0, replays = 0
        for _ in 0..<20_000 {
            now += TimeInterval(random.next() % 3) / 10
            let id = "j\(random.next() % 200)", expiry = now + TimeInterval(random.next() % 40)
            model = model.filter { $0.value > now }
            let expected: Bool
            if model[id] != nil { expected = false; replays += 1 }
            else if model.count >= 64 { expected = false; refusedForRoom += 1 }
            else { expected = true; model[id] = expiry }
            #expect(cache.recordFirstUse(of: id, scope: "s", until: expiry, now: now) == expected, "\(id) at \(now)")
        }
        #expect(replays > 100 && refusedForRoom > 0, "the workload reaches both refusals")
    }

    @Test("concurrent records of one identifier: exactly one first use")
    func concurrentFirstUse() async {
        let cache = MemoryReplayCache()
        let accepted = await withTaskGroup(of: Bool.self) { group in
            for _ in 0..<64 { group.addTask { cache.recordFirstUse(of: "same", scope: "s", until: Self.t0 + 60, now: Self.t0) } }
            return await group.reduce(0) { $0 + ($1 ? 1 : 0) }
        }
        #expect(accepted == 1)
    }
}

/// A small seeded generator (SplitMix64), so the workload is the same on every run.
struct SplitMix {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
