import JOSE
import OIDC
import OIDCSession

extension RedisTokenStore: RefreshLeaseBackend {
    /// ``/OIDCSession/CoordinatedTokenStore``'s single-flight refresh with a *lease* recorded in the hash
    /// (owner, expiry by the server's clock, a fencing generation), the protocol `OIDCPostgres` follows too:
    /// read; wait while another replica holds a live lease (woken by `PUBLISH` on the subscriber connection,
    /// by the lease's expiry, or a slow re-read); take an absent or expired lease in one script if the
    /// generation is still the one read; call the provider outside any script, renewing the lease every
    /// `lease / 6` s on the lease connection (abandoned with `refresh_lease_not_renewed` before the lease can
    /// pass to another replica); store the result only if the hash is still this call's (`refresh_lease_lost`
    /// otherwise). A dropped connection (`CLIENT KILL`, a restart) does not lose a result: the fenced write is
    /// retried on a fresh connection until `waitTimeout`.
    ///
    /// What cannot be saved: a replica that dies after the provider rotated the refresh token but before the
    /// store; and a server restarted *without persistence* mid-run forgets the tokens themselves: every replica
    /// then sees no tokens (`loggedOut`), and nobody sends a spent refresh token (a logout at worst, never a replay).
    public func coordinatedRefresh(
        replacing stale: TokenResponse,
        _ refresh: @Sendable (TokenResponse) async throws -> RefreshStepResult
    ) async throws -> CoordinatedRefreshResult {
        try await leasedRefresh(replacing: stale, refresh)
    }

    // MARK: RefreshLeaseBackend (the protocol is OIDCSession's, shared with OIDCPostgres)

    package var isStoreClosed: Bool { database.isClosed }

    package func changeMark() -> ChangeListener.Mark { database.subscriber.mark(changeMessage) }

    package func waitForChange(since mark: ChangeListener.Mark, timeout: Double) async {
        await database.subscriber.wait(for: changeMessage, since: mark, timeout: timeout)
    }

    package func isConnectionTrouble(_ error: OIDCError) -> Bool {
        error.code == .redisUnavailable || error.code == .redisTimeout
    }

    private var leaseMilliseconds: [UInt8] { Array(String((leaseSeconds * 1000).rounded(.up).wholeInt ?? 30_000).utf8) }
    private var announce: [[UInt8]] { [Array(RedisChangeFeed.channel.utf8), Array(changeMessage.utf8)] }

    package func readRow(onLeaseConnection: Bool) async throws -> LeaseRow? {
        let reply = try await database.eval(TokenScripts.read, keys: [redisKey], arguments: [], lease: onLeaseConnection)
        if reply == .null { return nil }
        let fields = try reply.array("the stored tokens")
        guard fields.count == 5 else { throw OIDCError(.invalidRedisValue, "the stored tokens' record has an unexpected form") }
        guard let payload = try fields[2].bytes("token payload") else { return nil }
        let tokens = try decode(payload: payload, keyID: try fields[1].text("key id"))
        return LeaseRow(
            tokens: tokens, generation: try fields[0].integer("generation"), leased: try fields[3].integer("lease state") == 1,
            leaseRemaining: Double(try fields[4].integer("lease expiry")) / 1000)
    }

    package func takeLease(from generation: Int64, owner: String) async throws -> Int64? {
        let reply = try await database.eval(
            TokenScripts.take, keys: [redisKey], arguments: [Array(owner.utf8), leaseMilliseconds, Array(String(generation).utf8)], lease: true)
        if reply == .null { return nil }
        return try reply.integer("generation")
    }

    package func renewLease(generation: Int64, owner: String) async throws -> Bool {
        try await database.eval(
            TokenScripts.renew, keys: [redisKey], arguments: [Array(String(generation).utf8), Array(owner.utf8), leaseMilliseconds],
            lease: true, abandonable: true
        ).integer("renewal") == 1
    }

    package func storeFenced(_ tokens: TokenResponse, generation: Int64, owner: String) async throws -> Bool {
        let (keyID, sealed) = try sealing.seal(Self.encode(tokens), rowKey: Array(key.utf8))
        return try await database.eval(
            TokenScripts.storeFenced, keys: [redisKey],
            arguments: [Array(String(generation).utf8), Array(owner.utf8)] + announce + [sealed, Array((keyID ?? "").utf8)], lease: true
        ).integer("store") == 1
    }

    package func deleteFenced(generation: Int64, owner: String) async throws -> Bool {
        try await database.eval(
            TokenScripts.deleteFenced, keys: [redisKey], arguments: [Array(String(generation).utf8), Array(owner.utf8)] + announce, lease: true
        ).integer("delete") == 1
    }

    package func releaseFenced(generation: Int64, owner: String) async throws -> Bool {
        try await database.eval(
            TokenScripts.releaseFenced, keys: [redisKey], arguments: [Array(String(generation).utf8), Array(owner.utf8)] + announce, lease: true
        ).integer("release") == 1
    }
}
