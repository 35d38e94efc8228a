// One import for a resource server: the shared vocabulary (errors, transports, discovery, key caches, the
// observer) and the default transport come with it.
@_exported import OIDCCore
@_exported import OIDCTLSTransport
