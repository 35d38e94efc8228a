// A resource server finds the shared vocabulary (errors, transports, discovery, key caches, the
// observer) through this one import.
@_exported import OIDCCore
