// The relying party's users find the shared vocabulary (errors, transports, discovery, key caches,
// the observer) through this one import.
@_exported import OIDCCore
