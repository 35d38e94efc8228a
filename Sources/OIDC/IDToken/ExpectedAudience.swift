/// The audience a token must be meant for, stated explicitly: leaving it out never skips the check.
public enum ExpectedAudience: Sendable, Hashable {
    /// `aud` must contain this value.
    case contains(String)
    /// DANGER: any audience (or none) is accepted. Only for tokens whose audience is checked by other means.
    case anyAudience
}
