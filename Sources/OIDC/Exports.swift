// One import for the relying party: the shared vocabulary (errors, transports, discovery, key caches, the
// observer) and the default transport come with it.
@_exported import OIDCCore
@_exported import OIDCTLSTransport
