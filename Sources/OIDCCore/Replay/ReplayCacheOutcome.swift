/// What a ``ReplayCache`` answers for one identifier.
public enum ReplayCacheOutcome: Sendable, Hashable {
    /// Recorded: the identifier had not been seen live in its scope. The token may pass.
    case firstUse
    /// Already recorded live in this scope: a replay. The validator refuses it as a replay
    /// (`dpop_proof_replayed`, `replayed_logout_token`).
    case replayed
    /// Not recorded because the scope's share (or the whole cache) holds only live entries: the
    /// identifier may be new, but the cache cannot remember it, so the token is refused as
    /// `replay_cache_full` (never reported as a replay).
    case full
}

extension OIDCEvent.Kind {
    /// A replay cache refused a new identifier for lack of room in its scope (outcome
    /// `failure(code: "replay_cache_full")`, origin as the validation event's): recorded besides the
    /// validation event, so a flood from one key or issuer is visible as such.
    public static let replayCacheFull = OIDCEvent.Kind(rawValue: "replay_cache.full")
}
