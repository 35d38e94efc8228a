import JOSE

/// The single error type of the OIDC layers.
///
/// ``code`` is stable and machine-readable; ``reason`` is for people. Codes
/// are open-ended (each layer adds its own as static members of ``Code``), and
/// no error ever carries a token, code, verifier or secret in its text.
public struct OIDCError: Error, Sendable, Hashable, CustomStringConvertible {
    /// A stable error code, e.g. `state_mismatch`, `invalid_grant`, `transport`, with the category it belongs to.
    ///
    /// Two codes are equal when their texts are; each module declares its codes in one file.
    public struct Code: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
        /// The code's text.
        public let rawValue: String
        /// What kind of failure the code stands for.
        public let category: Category
        /// Wraps a code text (a code this version does not know is `.invalidInput`).
        public init(rawValue: String) { self.init(rawValue, .invalidInput) }
        /// A code of `category`.
        package init(_ rawValue: String, _ category: Category) {
            self.rawValue = rawValue
            self.category = category
        }
        /// JOSE's code of the same failure, so the text is declared once.
        package init(_ jose: JOSEError.Code, _ category: Category) { self.init(jose.rawValue, category) }
        /// The code's text.
        public var description: String { rawValue }
        /// Codes are equal when their texts are.
        public static func == (lhs: Code, rhs: Code) -> Bool { lhs.rawValue == rhs.rawValue }
        /// Hashes the text.
        public func hash(into hasher: inout Hasher) { hasher.combine(rawValue) }
    }

    /// What an application does about an error, whatever its code.
    public enum Category: String, Sendable, Hashable, CaseIterable {
        /// A token, response, request or callback is invalid: refuse it (HTTP 400).
        case invalidInput = "invalid_input"
        /// The user's login or tokens are gone: send the browser to log in again (HTTP 401).
        case authenticateAgain = "authenticate_again"
        /// The provider answered with an OAuth error: ``OIDCError/oauthError`` says which (HTTP 403).
        case providerRefused = "provider_refused"
        /// The provider, the network or a shared store is unavailable; the same call may succeed later (HTTP 503).
        case unavailable
        /// The application's configuration is wrong; no retry helps (HTTP 500).
        case configuration
        /// A store failed to read or write (HTTP 500).
        case storage

        /// The status a web route answers for an error of this category.
        public var httpStatus: Int {
            switch self {
            case .invalidInput: 400
            case .authenticateAgain: 401
            case .providerRefused: 403
            case .unavailable: 503
            case .configuration, .storage: 500
            }
        }
    }

    /// What failed.
    public let code: Code
    /// Why, for people; never contains secrets.
    public let reason: String
    /// The OAuth error the provider returned, when there was one.
    public let oauthError: OAuthError?
    /// The HTTP status, when a response was received.
    public let httpStatus: Int?
    /// The JOSE error underneath (signature, key, claim), when there was one.
    public let joseError: JOSEError?
    /// The transport error underneath, when there was one.
    public let transportError: TransportError?
    /// The provider endpoint the error is about (e.g. `token_endpoint` for an `http` token endpoint), when there is one.
    public let endpoint: ProviderEndpoint?
    /// The code of the failure that led to this one, when this error stands for a consequence: e.g. a
    /// `logged_out` caused by `refresh_token_spent` or `no_refresh_token` (a provider's refusal is in ``oauthError``).
    public let cause: Code?

    /// Creates an error.
    public init(
        _ code: Code, _ reason: String, oauthError: OAuthError? = nil, httpStatus: Int? = nil,
        joseError: JOSEError? = nil, transportError: TransportError? = nil, endpoint: ProviderEndpoint? = nil,
        cause: Code? = nil
    ) {
        self.cause = cause
        self.code = code
        self.reason = reason
        self.oauthError = oauthError
        self.httpStatus = httpStatus
        self.joseError = joseError
        self.transportError = transportError
        self.endpoint = endpoint
    }

    /// `code: reason`.
    public var description: String { "\(code.rawValue): \(reason)" }

    /// What an application does about this error: the code's category, refined by the provider's OAuth error
    /// (`invalid_grant`, `login_required` and the other OpenID Connect interaction errors mean authenticate again;
    /// `server_error` and `temporarily_unavailable` mean unavailable).
    public var category: Category {
        guard let oauthError, code.category == .providerRefused else { return code.category }
        switch oauthError.code {
        case .invalidGrant, .loginRequired, .interactionRequired, .consentRequired, .accountSelectionRequired: return .authenticateAgain
        case .serverError, .temporarilyUnavailable: return .unavailable
        default: return .providerRefused
        }
    }

    /// The HTTP status a relying party's web route answers for this error: 400 for a refused callback,
    /// 401 when the browser must log in again, 403 when the provider refused, 503 while the provider or a
    /// store is unavailable, 500 for a configuration or storage fault. The text to show is ``code``, never
    /// ``reason`` (which is for logs).
    public var suggestedHTTPStatus: Int { category.httpStatus }
}

/// An OAuth 2.0 error response (RFC 6749 §4.1.2.1, §5.2; OpenID Connect Core §3.1.2.6).
/// Unknown error codes are kept verbatim.
public struct OAuthError: Sendable, Hashable, Codable, CustomStringConvertible {
    /// `error`, verbatim.
    public var error: String
    /// `error_description`
    public var errorDescription: String?
    /// `error_uri`
    public var errorURI: String?
    /// `state` (redirect errors only).
    public var state: String?

    /// Creates an error response.
    public init(error: String, errorDescription: String? = nil, errorURI: String? = nil, state: String? = nil) {
        self.error = error
        self.errorDescription = errorDescription
        self.errorURI = errorURI
        self.state = state
    }

    /// The code, typed when it is a standard one.
    public var code: OAuthError.Code { OAuthError.Code(rawValue: error) }

    /// `error: error_description` (the description is provider text, not a secret).
    public var description: String { errorDescription.map { "\(error): \($0)" } ?? error }

    package enum CodingKeys: String, CodingKey {
        case error
        case errorDescription = "error_description"
        case errorURI = "error_uri"
        case state
    }

    /// Standard OAuth / OpenID Connect error codes; any other is kept as `.other`.
    public struct Code: RawRepresentable, Sendable, Hashable {
        /// The code text.
        public let rawValue: String
        /// Wraps a code text.
        public init(rawValue: String) { self.rawValue = rawValue }

        /// RFC 6749 §4.1.2.1 / §5.2
        public static let invalidRequest = Code(rawValue: "invalid_request")
        /// RFC 6749 §5.2
        public static let invalidClient = Code(rawValue: "invalid_client")
        /// RFC 6749 §5.2
        public static let invalidGrant = Code(rawValue: "invalid_grant")
        /// RFC 6749 §4.1.2.1 / §5.2
        public static let unauthorizedClient = Code(rawValue: "unauthorized_client")
        /// RFC 6749 §5.2
        public static let unsupportedGrantType = Code(rawValue: "unsupported_grant_type")
        /// RFC 6749 §4.1.2.1 / §5.2
        public static let invalidScope = Code(rawValue: "invalid_scope")
        /// RFC 6749 §4.1.2.1
        public static let accessDenied = Code(rawValue: "access_denied")
        /// RFC 6749 §4.1.2.1
        public static let unsupportedResponseType = Code(rawValue: "unsupported_response_type")
        /// RFC 6749 §4.1.2.1
        public static let serverError = Code(rawValue: "server_error")
        /// RFC 6749 §4.1.2.1
        public static let temporarilyUnavailable = Code(rawValue: "temporarily_unavailable")
        /// OpenID Connect Core §3.1.2.6
        public static let interactionRequired = Code(rawValue: "interaction_required")
        /// OpenID Connect Core §3.1.2.6
        public static let loginRequired = Code(rawValue: "login_required")
        /// OpenID Connect Core §3.1.2.6
        public static let accountSelectionRequired = Code(rawValue: "account_selection_required")
        /// OpenID Connect Core §3.1.2.6
        public static let consentRequired = Code(rawValue: "consent_required")
        /// OpenID Connect Core §3.1.2.6
        public static let invalidRequestURI = Code(rawValue: "invalid_request_uri")
        /// OpenID Connect Core §3.1.2.6
        public static let invalidRequestObject = Code(rawValue: "invalid_request_object")
        /// OpenID Connect Core §3.1.2.6
        public static let requestNotSupported = Code(rawValue: "request_not_supported")
        /// OpenID Connect Core §3.1.2.6
        public static let requestURINotSupported = Code(rawValue: "request_uri_not_supported")
        /// OpenID Connect Core §3.1.2.6
        public static let registrationNotSupported = Code(rawValue: "registration_not_supported")
        /// RFC 6750 §3.1
        public static let invalidToken = Code(rawValue: "invalid_token")

        /// `invalid_redirect_uri` (RFC 7591 §3.2.2): a redirect URI is refused.
        public static let invalidRedirectURI = Code(rawValue: "invalid_redirect_uri")
        /// `invalid_client_metadata` (RFC 7591 §3.2.2): a metadata value is refused.
        public static let invalidClientMetadata = Code(rawValue: "invalid_client_metadata")
        /// `invalid_software_statement` (RFC 7591 §3.2.2).
        public static let invalidSoftwareStatement = Code(rawValue: "invalid_software_statement")
        /// `unapproved_software_statement` (RFC 7591 §3.2.2).
        public static let unapprovedSoftwareStatement = Code(rawValue: "unapproved_software_statement")

        /// Whether this is one of the codes registered above.
        public var isStandard: Bool {
            [
                Self.invalidRequest, .invalidClient, .invalidGrant, .unauthorizedClient, .unsupportedGrantType, .invalidScope,
                .accessDenied, .unsupportedResponseType, .serverError, .temporarilyUnavailable, .interactionRequired,
                .loginRequired, .accountSelectionRequired, .consentRequired, .invalidRequestURI, .invalidRequestObject,
                .requestNotSupported, .requestURINotSupported, .registrationNotSupported, .invalidToken,
                .invalidRedirectURI, .invalidClientMetadata, .invalidSoftwareStatement, .unapprovedSoftwareStatement,
            ].contains(self)
        }
    }
}
