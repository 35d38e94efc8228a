import JOSE

/// The `user` field Sign in with Apple posts with a `form_post` answer on the user's first authorization
/// only (its name is in no token): `{"name": {"firstName": …, "lastName": …}, "email": …}`. Store it then;
/// it never comes again. Unverified data from the browser's POST: the ID Token's `email` is the signed one.
public struct FormPostUser: Sendable, Hashable, CustomStringConvertible {
    /// `name.firstName`, when given.
    public let firstName: String?
    /// `name.lastName`, when given.
    public let lastName: String?
    /// `email`, when given.
    public let email: String?
    /// The whole object as posted.
    public let object: JSONObject

    /// Reads the field's JSON text.
    /// - Parameter json: the `user` form field's value.
    /// - Throws: ``/OIDCCore/OIDCError`` `.malformedFormPostUser` when it is not a JSON object of that shape.
    public init(json: String) throws {
        let object: JSONObject
        do {
            object = try JSONParser.parseObject(Array(json.utf8), what: "the user form field")
        } catch {
            throw OIDCError(.malformedFormPostUser, "the form_post \"user\" field is not a JSON object")
        }
        func text(_ value: JSONValue?, _ what: String) throws -> String? {
            switch value {
            case nil, .null?: return nil
            case .string(let text)?: return text
            default: throw OIDCError(.malformedFormPostUser, "the form_post \"user\" field's \(what) is not a string")
            }
        }
        let name: JSONObject?
        switch object["name"] {
        case nil, .null?: name = nil
        case .object(let value)?: name = value
        default: throw OIDCError(.malformedFormPostUser, "the form_post \"user\" field's name is not an object")
        }
        firstName = try text(name?["firstName"], "name.firstName")
        lastName = try text(name?["lastName"], "name.lastName")
        email = try text(object["email"], "email")
        self.object = object
    }

    /// Which members are present, not their values.
    public var description: String {
        "FormPostUser(firstName: \(firstName == nil ? "absent" : "present"), lastName: \(lastName == nil ? "absent" : "present"), "
            + "email: \(email == nil ? "absent" : "present"))"
    }
}

extension LoginResult {
    /// The `user` field of a `form_post` answer (Sign in with Apple's first authorization), typed; `nil`
    /// when the answer had none.
    /// - Throws: ``/OIDCCore/OIDCError`` `.malformedFormPostUser` when it is present but not of the documented shape.
    public var formPostUser: FormPostUser? {
        get throws { try authorizationResponse.additionalParameters["user"].map(FormPostUser.init(json:)) }
    }
}
