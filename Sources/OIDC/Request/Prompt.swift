/// A `prompt` value (OpenID Connect Core §3.1.2.1). Values combine, except ``none``,
/// which must stand alone. Other registered values (e.g. `create`) can be made with ``init(rawValue:)``.
public struct Prompt: RawRepresentable, Sendable, Hashable, Codable, CustomStringConvertible {
    /// The value as sent.
    public let rawValue: String

    /// Wraps a prompt value.
    public init(rawValue: String) { self.rawValue = rawValue }

    /// `none`: no user interface at all; the provider answers `login_required`,
    /// `consent_required`, ... when it would need one.
    public static let none = Prompt(rawValue: "none")
    /// `login`: reauthenticate the user.
    public static let login = Prompt(rawValue: "login")
    /// `consent`: ask for consent again.
    public static let consent = Prompt(rawValue: "consent")
    /// `select_account`: let the user choose an account.
    public static let selectAccount = Prompt(rawValue: "select_account")

    /// The value as sent.
    public var description: String { rawValue }
}
