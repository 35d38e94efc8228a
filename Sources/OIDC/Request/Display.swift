/// The `display` parameter (OpenID Connect Core §3.1.2.1): how the provider should show its pages.
public enum Display: String, Sendable, Hashable, Codable, CaseIterable, CustomStringConvertible {
    /// A full user-agent page.
    case page = "page"
    /// A popup window.
    case popup = "popup"
    /// A touch interface.
    case touch = "touch"
    /// A feature phone.
    case wap = "wap"

    /// The value as sent.
    public var description: String { rawValue }
}
