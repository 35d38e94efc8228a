/// An event type URI of CAEP 1.0, RISC 1.0 or SSF 1.0; any other URI is a type too, read as ``SecurityEvent/Kind/unknown``.
public struct SecurityEventType: RawRepresentable, Sendable, Hashable, CustomStringConvertible, ExpressibleByStringLiteral {
    /// The URI.
    public let rawValue: String
    /// Wraps a URI.
    public init(rawValue: String) { self.rawValue = rawValue }
    /// Wraps a URI literal.
    public init(stringLiteral value: String) { self.rawValue = value }
    /// The URI.
    public var description: String { rawValue }

    static let caep = "https://schemas.openid.net/secevent/caep/event-type/"
    static let risc = "https://schemas.openid.net/secevent/risc/event-type/"
    static let ssf = "https://schemas.openid.net/secevent/ssf/event-type/"

    /// CAEP session-revoked.
    public static let sessionRevoked = SecurityEventType(rawValue: caep + "session-revoked")
    /// CAEP token-claims-change.
    public static let tokenClaimsChange = SecurityEventType(rawValue: caep + "token-claims-change")
    /// CAEP credential-change.
    public static let credentialChange = SecurityEventType(rawValue: caep + "credential-change")
    /// CAEP assurance-level-change.
    public static let assuranceLevelChange = SecurityEventType(rawValue: caep + "assurance-level-change")
    /// CAEP device-compliance-change.
    public static let deviceComplianceChange = SecurityEventType(rawValue: caep + "device-compliance-change")
    /// CAEP session-established.
    public static let sessionEstablished = SecurityEventType(rawValue: caep + "session-established")
    /// CAEP session-presented.
    public static let sessionPresented = SecurityEventType(rawValue: caep + "session-presented")
    /// CAEP risk-level-change.
    public static let riskLevelChange = SecurityEventType(rawValue: caep + "risk-level-change")

    /// RISC account-credential-change-required.
    public static let accountCredentialChangeRequired = SecurityEventType(rawValue: risc + "account-credential-change-required")
    /// RISC account-purged.
    public static let accountPurged = SecurityEventType(rawValue: risc + "account-purged")
    /// RISC account-disabled.
    public static let accountDisabled = SecurityEventType(rawValue: risc + "account-disabled")
    /// RISC account-enabled.
    public static let accountEnabled = SecurityEventType(rawValue: risc + "account-enabled")
    /// RISC identifier-changed.
    public static let identifierChanged = SecurityEventType(rawValue: risc + "identifier-changed")
    /// RISC identifier-recycled.
    public static let identifierRecycled = SecurityEventType(rawValue: risc + "identifier-recycled")
    /// RISC credential-compromise.
    public static let credentialCompromise = SecurityEventType(rawValue: risc + "credential-compromise")
    /// RISC opt-in.
    public static let optIn = SecurityEventType(rawValue: risc + "opt-in")
    /// RISC opt-out-initiated.
    public static let optOutInitiated = SecurityEventType(rawValue: risc + "opt-out-initiated")
    /// RISC opt-out-cancelled.
    public static let optOutCancelled = SecurityEventType(rawValue: risc + "opt-out-cancelled")
    /// RISC opt-out-effective.
    public static let optOutEffective = SecurityEventType(rawValue: risc + "opt-out-effective")
    /// RISC recovery-activated.
    public static let recoveryActivated = SecurityEventType(rawValue: risc + "recovery-activated")
    /// RISC recovery-information-changed.
    public static let recoveryInformationChanged = SecurityEventType(rawValue: risc + "recovery-information-changed")

    /// SSF verification.
    public static let verification = SecurityEventType(rawValue: ssf + "verification")
    /// SSF stream-updated.
    public static let streamUpdated = SecurityEventType(rawValue: ssf + "stream-updated")

    /// The types whose receipt ends the subject's sessions: CAEP session-revoked and credential-change, RISC
    /// account-disabled and account-purged.
    public static let endingSessions: Set<SecurityEventType> = [.sessionRevoked, .credentialChange, .accountDisabled, .accountPurged]
    /// The types whose receipt makes the subject's sessions refresh before their next use: CAEP token-claims-change
    /// and assurance-level-change.
    public static let requiringRefresh: Set<SecurityEventType> = [.tokenClaimsChange, .assuranceLevelChange]
}
