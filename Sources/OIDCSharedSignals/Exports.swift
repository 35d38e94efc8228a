// One import for a receiver of Shared Signals: the session layer (and the relying party) come with it.
@_exported import OIDCSession
