import JOSE
import OIDCCore

extension AccessToken {
    /// The `authorization_details` claim of the token (RFC 9396 §9.1, RFC 9068), typed; `nil` when absent.
    /// Pick them by ``/OIDCCore/AuthorizationDetail/type`` and decode your own types from them.
    /// - Throws: ``/OIDCCore/OIDCError`` `.invalidAuthorizationDetails` when the claim is not an array of objects with `type`.
    public var authorizationDetails: [AuthorizationDetail]? {
        get throws {
            guard let value = claims[AuthorizationDetail.parameterName], !value.isNull else { return nil }
            return try AuthorizationDetail.parseArray(value, what: "the access token")
        }
    }

    /// The token's authorization details when it carries at least one object of every type in `types`.
    /// - Throws: ``/OIDCCore/OIDCError`` `.insufficientAuthorizationDetails` naming the first type not granted;
    ///   `.invalidAuthorizationDetails` for a malformed claim.
    @discardableResult
    public func requireAuthorizationDetails(types: [String]) throws -> [AuthorizationDetail] {
        try AuthorizationDetail.require(types: types, in: try authorizationDetails ?? [], what: "the access token")
    }
}

extension TokenIntrospection {
    /// The `authorization_details` member of the answer (RFC 9396 §9.2), typed; `nil` when absent.
    /// - Throws: ``/OIDCCore/OIDCError`` `.invalidAuthorizationDetails` when the member is not an array of objects with `type`.
    public var authorizationDetails: [AuthorizationDetail]? {
        get throws {
            guard let value = members[AuthorizationDetail.parameterName], !value.isNull else { return nil }
            return try AuthorizationDetail.parseArray(value, what: "the introspection answer")
        }
    }

    /// The answer's authorization details when they hold at least one object of every type in `types`.
    /// - Throws: ``/OIDCCore/OIDCError`` `.insufficientAuthorizationDetails` naming the first type not granted;
    ///   `.invalidAuthorizationDetails` for a malformed member.
    @discardableResult
    public func requireAuthorizationDetails(types: [String]) throws -> [AuthorizationDetail] {
        try AuthorizationDetail.require(types: types, in: try authorizationDetails ?? [], what: "the introspected token")
    }
}

extension AuthorizationDetail {
    /// The one matching rule (by `type`, exactly) of both token forms.
    static func require(types: [String], in details: [AuthorizationDetail], what: String) throws -> [AuthorizationDetail] {
        if let missing = details.firstMissingType(of: types) {
            throw OIDCError(
                .insufficientAuthorizationDetails,
                "\(what) grants no authorization_details of type \"\(missing.prefix(64))\"")
        }
        return details
    }
}
