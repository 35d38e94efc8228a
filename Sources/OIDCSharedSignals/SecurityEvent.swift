import JOSE

/// The one event of a validated Security Event Token: its type, its members, and a typed reading of both.
///
/// An event type this version does not know is ``Kind/unknown``, never a failure.
public struct SecurityEvent: Sendable, Hashable {
    /// The event type URI (the member name in `events`).
    public let type: SecurityEventType
    /// The event's members as sent.
    public let members: JSONObject
    /// The typed reading of ``type`` and ``members``.
    public let kind: Kind

    /// What an event says, by type; optional members are `nil` when absent or not strings.
    public enum Kind: Sendable, Hashable {
        /// CAEP session-revoked: the session (or every session of the subject) is over.
        case sessionRevoked
        /// CAEP token-claims-change: `claims` holds the changed claims and their new values.
        case tokenClaimsChange(claims: JSONObject)
        /// CAEP credential-change: `credential_type` and `change_type` (create, revoke, update, delete).
        case credentialChange(credentialType: String?, changeType: String?)
        /// CAEP assurance-level-change: `namespace`, `current_level`, `previous_level`.
        case assuranceLevelChange(namespace: String?, currentLevel: String?, previousLevel: String?)
        /// CAEP device-compliance-change: `current_status`, `previous_status` (compliant, not-compliant).
        case deviceComplianceChange(currentStatus: String?, previousStatus: String?)
        /// CAEP session-established.
        case sessionEstablished
        /// CAEP session-presented.
        case sessionPresented
        /// CAEP risk-level-change: `risk_reason`, `principal`, `current_level`, `previous_level`.
        case riskLevelChange(principal: String?, currentLevel: String?, previousLevel: String?)
        /// RISC account-credential-change-required.
        case accountCredentialChangeRequired
        /// RISC account-purged.
        case accountPurged
        /// RISC account-disabled: `reason` (hijacking, bulk-account).
        case accountDisabled(reason: String?)
        /// RISC account-enabled.
        case accountEnabled
        /// RISC identifier-changed: `new-value`.
        case identifierChanged(newValue: String?)
        /// RISC identifier-recycled.
        case identifierRecycled
        /// RISC credential-compromise: `credential_type`.
        case credentialCompromise(credentialType: String?)
        /// RISC opt-in, opt-out-initiated, opt-out-cancelled, opt-out-effective: the type says which.
        case optInOrOut
        /// RISC recovery-activated or recovery-information-changed.
        case recovery
        /// SSF verification: the `state` the receiver sent with its verification request, when there was one.
        case verification(state: String?)
        /// SSF stream-updated: the stream's new `status` (enabled, paused, disabled) and `reason`.
        case streamUpdated(status: String?, reason: String?)
        /// Any other type: read ``SecurityEvent/type`` and ``SecurityEvent/members``.
        case unknown
    }

    /// What the receiver does about an event of this type.
    public enum Effect: String, Sendable, Hashable {
        /// End the subject's sessions: CAEP session-revoked, credential-change, RISC account-disabled, account-purged.
        case endSessions = "end_sessions"
        /// Make the subject's sessions refresh before their next use: CAEP token-claims-change, assurance-level-change.
        case refreshSessions = "refresh_sessions"
        /// Nothing on sessions: delivered to the application as a typed event.
        case deliver
    }

    /// What the receiver does about this event.
    public var effect: Effect {
        if SecurityEventType.endingSessions.contains(type) { return .endSessions }
        if SecurityEventType.requiringRefresh.contains(type) { return .refreshSessions }
        return .deliver
    }

    /// Reads the event of `type` with `members`.
    public init(type: SecurityEventType, members: JSONObject) {
        self.type = type
        self.members = members
        func text(_ name: String) -> String? { members[name]?.stringValue }
        switch type {
        case .sessionRevoked: kind = .sessionRevoked
        case .tokenClaimsChange: kind = .tokenClaimsChange(claims: members["claims"]?.objectValue ?? JSONObject())
        case .credentialChange: kind = .credentialChange(credentialType: text("credential_type"), changeType: text("change_type"))
        case .assuranceLevelChange:
            kind = .assuranceLevelChange(namespace: text("namespace"), currentLevel: text("current_level"), previousLevel: text("previous_level"))
        case .deviceComplianceChange: kind = .deviceComplianceChange(currentStatus: text("current_status"), previousStatus: text("previous_status"))
        case .sessionEstablished: kind = .sessionEstablished
        case .sessionPresented: kind = .sessionPresented
        case .riskLevelChange: kind = .riskLevelChange(principal: text("principal"), currentLevel: text("current_level"), previousLevel: text("previous_level"))
        case .accountCredentialChangeRequired: kind = .accountCredentialChangeRequired
        case .accountPurged: kind = .accountPurged
        case .accountDisabled: kind = .accountDisabled(reason: text("reason"))
        case .accountEnabled: kind = .accountEnabled
        case .identifierChanged: kind = .identifierChanged(newValue: text("new-value"))
        case .identifierRecycled: kind = .identifierRecycled
        case .credentialCompromise: kind = .credentialCompromise(credentialType: text("credential_type"))
        case .optIn, .optOutInitiated, .optOutCancelled, .optOutEffective: kind = .optInOrOut
        case .recoveryActivated, .recoveryInformationChanged: kind = .recovery
        case .verification: kind = .verification(state: text("state"))
        case .streamUpdated: kind = .streamUpdated(status: text("status"), reason: text("reason"))
        default: kind = .unknown
        }
    }
}
