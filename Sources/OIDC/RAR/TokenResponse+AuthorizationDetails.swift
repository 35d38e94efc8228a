extension TokenResponse {
    /// The granted `authorization_details` (RFC 9396 §7), typed; `nil` when the response has none.
    /// Pick them by ``/OIDCCore/AuthorizationDetail/type`` (`Swift.Array.ofType(_:)`) and decode your own types
    /// (`Swift.Array.decode(_:ofType:)`).
    /// - Throws: ``/OIDCCore/OIDCError`` `.invalidAuthorizationDetails` when the member is not an array of objects with `type`.
    public var authorizationDetails: [AuthorizationDetail]? {
        get throws {
            guard let value = additionalFields[AuthorizationDetail.parameterName], !value.isNull else { return nil }
            return try AuthorizationDetail.parseArray(value, what: "the token response")
        }
    }
}
