// The stores' vocabulary (token stores, pending logins, the sealing of secrets at rest) comes with the module.
@_exported import OIDCSession
