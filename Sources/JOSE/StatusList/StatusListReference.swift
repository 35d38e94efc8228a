/// Where a credential's status is kept (draft-ietf-oauth-status-list §6.1): the `status.status_list` claim,
/// `{"idx": <entry>, "uri": "<status list token URL>"}`.
public struct StatusListReference: Sendable, Hashable {
    /// The entry of the list that holds this credential's status.
    public let index: Int
    /// The URI of the status list token; the token's `sub` must equal it.
    public let uri: String

    /// Names an entry of a list.
    public init(index: Int, uri: String) {
        self.index = index
        self.uri = uri
    }

    /// The reference in a credential's claims, or `nil` when it has no `status.status_list` (a credential
    /// without a status mechanism).
    /// - Throws: ``JOSEError`` `.invalidStatusList` when `status.status_list` is there but malformed: `idx` not a
    ///   non-negative integer, `uri` not a string.
    public init?(claims: JSONObject) throws(JOSEError) {
        guard let status = claims["status"] else { return nil }
        guard let reference = status.objectValue?["status_list"] else {
            guard status.objectValue != nil else {
                throw JOSEError(.invalidStatusList, "the credential's status claim is not an object", member: "status")
            }
            return nil
        }
        guard let object = reference.objectValue else {
            throw JOSEError(.invalidStatusList, "the credential's status.status_list is not an object", member: "status_list")
        }
        guard let index = object["idx"]?.int64Value, index >= 0, let checked = Int(exactly: index) else {
            throw JOSEError(.invalidStatusList, "the credential's status_list.idx is not a non-negative integer", member: "idx")
        }
        guard let uri = object["uri"]?.stringValue, !uri.isEmpty else {
            throw JOSEError(.invalidStatusList, "the credential's status_list.uri is not a string", member: "uri")
        }
        self.init(index: checked, uri: uri)
    }
}
