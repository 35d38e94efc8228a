import Foundation
import JOSE
import OIDCResourceServer
import Testing

/// The in-memory replay cache: live entries refused, expired ones dropped soonest first (never a scan),
/// bounded in total and per scope, on a monotonic clock, checked against a plain model on a seeded workload.
@Suite("InMemoryReplayCache")
struct MemoryReplayCacheTests {
    static let t0 = Date(timeIntervalSince1970: 1_800_000_000)

    /// A cache on a monotonic clock the test moves: ``record(_:_:until:now:)`` moves it with the wall
    /// clock (no step), ``step(by:)`` moves only the wall clock.
    final class Harness: Sendable {
        let elapsed: Locked<Duration>
        let cache: InMemoryReplayCache

        init(capacity: Int = 100_000, scopeCapacity: Int? = nil) {
            let base = ContinuousClock.now, elapsed = Locked(Duration.zero)
            self.elapsed = elapsed
            cache = InMemoryReplayCache(capacity: capacity, scopeCapacity: scopeCapacity, monotonicClock: { base + elapsed.withLock { $0 } })
        }

        /// Records with the monotonic clock at `now` − t0 (wall and monotonic clocks agree).
        func record(_ identifier: String, _ scope: String = "s", until expiry: Date, now: Date) -> ReplayCacheOutcome {
            elapsed.withLock { $0 = .milliseconds(Int64((now.timeIntervalSince(MemoryReplayCacheTests.t0) * 1000).rounded())) }
            return cache.recordFirstUse(of: identifier, scope: scope, until: expiry, now: now)
        }
    }

    @Test("a second use is refused until the first's expiry, accepted after it; scopes are separate")
    func replayWindow() {
        let cache = Harness()
        #expect(cache.record("a", "k1", until: Self.t0 + 60, now: Self.t0) == .firstUse)
        #expect(cache.record("a", "k1", until: Self.t0 + 120, now: Self.t0 + 59) == .replayed)
        #expect(cache.record("a", "k2", until: Self.t0 + 60, now: Self.t0 + 59) == .firstUse)
        #expect(cache.record("a", "k1", until: Self.t0 + 200, now: Self.t0 + 60) == .firstUse)
        #expect(cache.record("a", "k1", until: Self.t0 + 300, now: Self.t0 + 199) == .replayed)
    }

    @Test("release: the identifier is a first use again, counted out of its scope; the last one's scope leaves; the old deadline drops nothing")
    func release() {
        let cache = Harness()
        #expect(cache.record("a", "k1", until: Self.t0 + 60, now: Self.t0) == .firstUse)
        #expect(cache.record("b", "k1", until: Self.t0 + 60, now: Self.t0) == .firstUse)
        cache.cache.release("a", scope: "k1")
        cache.cache.release("a", scope: "nowhere")
        #expect(cache.cache.count == 1 && cache.cache.scopeCount == 1)
        #expect(cache.record("a", "k1", until: Self.t0 + 200, now: Self.t0 + 1) == .firstUse)
        cache.cache.release("b", scope: "k1")
        #expect(cache.record("a", "k1", until: Self.t0 + 300, now: Self.t0 + 61) == .replayed)  // a's first deadline passed: its new entry stays
        cache.cache.release("a", scope: "k1")
        #expect(cache.cache.count == 0 && cache.cache.scopeCount == 0)
    }

    @Test("a scope's share full of live entries: its new identifier is full (not a replay); once one expires, there is room again")
    func scopeShare() {
        let cache = Harness(capacity: 3, scopeCapacity: 3)
        for (i, life) in [30.0, 10, 20].enumerated() {
            #expect(cache.record("j\(i)", until: Self.t0 + life, now: Self.t0) == .firstUse)
        }
        #expect(cache.record("j3", until: Self.t0 + 40, now: Self.t0 + 9) == .full)
        #expect(cache.record("j3", until: Self.t0 + 40, now: Self.t0 + 10) == .firstUse)  // j1 expired at +10
        #expect(cache.record("j0", until: Self.t0 + 40, now: Self.t0 + 10) == .replayed)  // still live
        #expect(cache.record("j4", until: Self.t0 + 40, now: Self.t0 + 19) == .full)
        #expect(cache.cache.count == 3)
    }

    @Test("100 000 identifiers of one scope fill only its share (10 000 by default): every other scope still records (was refused)")
    func floodFillsOnlyItsShare() {
        let cache = InMemoryReplayCache()
        #expect(cache.capacity == 100_000 && cache.scopeCapacity == 10_000)
        var outcomes: [ReplayCacheOutcome: Int] = [:]
        for i in 0..<100_000 {
            outcomes[cache.recordFirstUse(of: "flood-\(i)", scope: "attacker", until: Self.t0 + 361, now: Self.t0), default: 0] += 1
        }
        #expect(outcomes == [.firstUse: 10_000, .full: 90_000])
        #expect(cache.recordFirstUse(of: "flood-0", scope: "attacker", until: Self.t0 + 361, now: Self.t0) == .replayed)
        #expect(cache.recordFirstUse(of: "fresh", scope: "honest-key", until: Self.t0 + 361, now: Self.t0) == .firstUse)
        #expect(cache.recordFirstUse(of: "logout-1", scope: "https://issuer.example", until: Self.t0 + 660, now: Self.t0) == .firstUse)
        #expect(cache.count == 10_002 && cache.scopeCount == 3)
    }

    @Test("a full cache makes room fairly: the largest scope gives up its soonest half and refuses their replays as full, fresh entries pass")
    func fairEviction() {
        let cache = Harness(capacity: 10, scopeCapacity: 6)
        for i in 0..<6 { #expect(cache.record("a\(i)", "A", until: Self.t0 + 100 + Double(i), now: Self.t0) == .firstUse) }
        for i in 0..<3 { #expect(cache.record("b\(i)", "B", until: Self.t0 + 100, now: Self.t0) == .firstUse) }
        #expect(cache.record("c0", "C", until: Self.t0 + 100, now: Self.t0) == .firstUse)
        #expect(cache.cache.count == 10)
        // Full: D's first entry takes room from A (6 entries), which gives up a0, a1, a2 (expiring at +100 ... +102).
        #expect(cache.record("d0", "D", until: Self.t0 + 100, now: Self.t0 + 1) == .firstUse)
        #expect(cache.cache.count == 8)
        #expect(cache.record("a1", "A", until: Self.t0 + 101, now: Self.t0 + 2) == .full, "a replay of a given-up entry is never a first use")
        #expect(cache.record("a4", "A", until: Self.t0 + 104, now: Self.t0 + 2) == .replayed)
        #expect(cache.record("a-old", "A", until: Self.t0 + 102, now: Self.t0 + 2) == .full)
        #expect(cache.record("a-fresh", "A", until: Self.t0 + 103, now: Self.t0 + 2) == .firstUse)
        #expect(cache.record("b0", "B", until: Self.t0 + 100, now: Self.t0 + 2) == .replayed)
        // Once the given-up entries' time has passed, the mark is gone.
        #expect(cache.record("a1", "A", until: Self.t0 + 200, now: Self.t0 + 102) == .firstUse)
    }

    @Test("a cache full of single-entry scopes refuses new identifiers as full rather than forgetting")
    func scopeFlood() {
        let cache = Harness(capacity: 4, scopeCapacity: 2)
        for i in 0..<4 { #expect(cache.record("j", "k\(i)", until: Self.t0 + 60, now: Self.t0) == .firstUse) }
        #expect(cache.record("j", "k4", until: Self.t0 + 60, now: Self.t0) == .full)
        #expect(cache.record("j2", "k0", until: Self.t0 + 60, now: Self.t0) == .full)
        #expect(cache.record("j", "k0", until: Self.t0 + 60, now: Self.t0) == .replayed)
        #expect(cache.record("j", "k4", until: Self.t0 + 120, now: Self.t0 + 60) == .firstUse)
        #expect(cache.cache.scopeCount == 1)
    }

    @Test("retention runs on the monotonic clock: a wall clock stepped forward an hour does not drop live entries (it did)")
    func wallClockStepForward() {
        let cache = Harness()
        #expect(cache.record("proof-1", "key", until: Self.t0 + 361, now: Self.t0) == .firstUse)
        // The wall clock steps forward by an hour while only 1 s passes on the monotonic clock.
        cache.elapsed.withLock { $0 = .seconds(1) }
        let stepped = Self.t0 + 3600
        #expect(cache.cache.recordFirstUse(of: "proof-1", scope: "key", until: Self.t0 + 361, now: stepped) == .replayed)
        #expect(cache.cache.recordFirstUse(of: "other", scope: "key", until: stepped + 361, now: stepped) == .firstUse)
        // ... and back: still live until 361 s have passed on the monotonic clock.
        cache.elapsed.withLock { $0 = .seconds(360) }
        #expect(cache.cache.recordFirstUse(of: "proof-1", scope: "key", until: Self.t0 + 361, now: Self.t0 + 360) == .replayed)
        cache.elapsed.withLock { $0 = .seconds(361) }
        #expect(cache.cache.recordFirstUse(of: "proof-1", scope: "key", until: Self.t0 + 722, now: Self.t0 + 361) == .firstUse)
    }

    @Test("entries leave at their expiry, so a steady stream never fills the cache")
    func steadyStream() {
        let cache = Harness(capacity: 1000, scopeCapacity: 1000)
        for second in 0..<10_000 {
            let now = Self.t0 + TimeInterval(second)
            #expect(cache.record("jti-\(second)", until: now + 100, now: now) == .firstUse)
        }
        #expect(cache.cache.count <= 101)
    }

    @Test("a seeded random workload answers exactly as a plain dictionary that forgets at expiry")
    func matchesModel() {
        var random = SplitMix(seed: 0x5eed)
        let cache = Harness(capacity: 64, scopeCapacity: 64)
        var model: [String: Date] = [:]
        var now = Self.t0
        var refusedForRoom = 0, replays = 0
        for _ in 0..<20_000 {
            now += TimeInterval(random.next() % 3) * 0.125  // binary fractions: wall and monotonic arithmetic agree exactly
            let id = "j\(random.next() % 200)", expiry = now + TimeInterval(random.next() % 40)
            model = model.filter { $0.value > now }
            let expected: ReplayCacheOutcome
            if model[id] != nil {
                expected = .replayed; replays += 1
            } else if expiry <= now {
                expected = .firstUse
            } else if model.count >= 64 {
                expected = .full; refusedForRoom += 1
            } else {
                expected = .firstUse; model[id] = expiry
            }
            #expect(cache.record(id, until: expiry, now: now) == expected, "\(id) at \(now)")
        }
        #expect(replays > 100 && refusedForRoom > 0, "the workload reaches both refusals")
    }

    @Test("concurrent records of one identifier: exactly one first use")
    func concurrentFirstUse() async {
        let cache = InMemoryReplayCache()
        let accepted = await withTaskGroup(of: Bool.self) { group in
            for _ in 0..<64 { group.addTask { cache.recordFirstUse(of: "same", scope: "s", until: Self.t0 + 60, now: Self.t0) == .firstUse } }
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
