import Foundation
import OIDCResourceServer
import Testing

@testable import hummingbird_app

/// Back-channel logout tokens and DPoP proofs in replay caches of their own (without `--database`).
@Suite("hummingbird-app: logout tokens apart from DPoP proofs")
struct ReplayCachesApartTests {
    @Test("a DPoP cache filled by one client's proofs leaves a never-seen logout token accepted")
    func floodedDPoPCacheLeavesLogoutTokensAccepted() async throws {
        let stores = AppStores.inMemory(Options())
        let logoutCache = try #require(stores.logoutTokenReplays as? InMemoryReplayCache)
        let dpopCache = try #require(stores.dpopProofReplays as? InMemoryReplayCache)
        #expect(logoutCache !== dpopCache)
        let now = Date()
        let window = now.addingTimeInterval(300)
        // One client's proofs, each with a fresh jti, as many as a default cache holds (and a few more).
        var refused = 0
        for index in 0..<100_010 {
            let first = try await stores.dpopProofReplays.recordFirstUse(
                of: "proof-\(index)", scope: "attacker-key-thumbprint",
                until: window, now: now)
            if first != .firstUse { refused += 1 }
        }
        #expect(refused > 0, "the flood did not fill the DPoP cache: this test proves nothing")
        let accepted = try await stores.logoutTokenReplays.recordFirstUse(
            of: "logout-token-jti", scope: "https://op.example",
            until: window, now: now)
        #expect(accepted == .firstUse)
    }
}
