import JOSE

/// Error codes of provider discovery (OpenID Connect Discovery 1.0, RFC 8414).
