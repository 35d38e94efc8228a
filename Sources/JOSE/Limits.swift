/// Bounds on untrusted input. Exceeding any of them is a ``JOSEError`` with
/// code `.limitExceeded`, raised before the expensive work starts.
public struct JOSELimits: Sendable, Hashable {
    /// Largest accepted token (compact or JSON serialization), in bytes.
    public var maxTokenBytes: Int
    /// Deepest nesting of JSON arrays and objects in headers, claims and keys.
    public var maxJSONDepth: Int
    /// Most keys accepted in one JWK Set.
    public var maxKeysInSet: Int
    /// Largest JWK Set document, in bytes.
    public var maxKeySetBytes: Int
    /// Most recipients accepted in one JWE JSON serialization (each may cost a private-key operation).
    public var maxRecipients: Int

    /// Creates limits; the defaults suit real ID tokens and provider key sets.
    public init(
        maxTokenBytes: Int = 64 * 1024, maxJSONDepth: Int = 32, maxKeysInSet: Int = 100, maxKeySetBytes: Int = 512 * 1024,
        maxRecipients: Int = 16
    ) {
        self.maxRecipients = maxRecipients
        self.maxTokenBytes = maxTokenBytes
        self.maxJSONDepth = maxJSONDepth
        self.maxKeysInSet = maxKeysInSet
        self.maxKeySetBytes = maxKeySetBytes
    }

    /// 64 KiB tokens, depth 32, 100 keys, 512 KiB key sets, 16 JWE recipients.
    public static let `default` = JOSELimits()

    var tokenJSON: JSONLimits { JSONLimits(maxDepth: maxJSONDepth, maxBytes: maxTokenBytes) }
    var keySetJSON: JSONLimits { JSONLimits(maxDepth: maxJSONDepth, maxBytes: maxKeySetBytes) }
}
