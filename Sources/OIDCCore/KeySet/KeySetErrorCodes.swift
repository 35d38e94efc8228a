import JOSE

/// Error codes of the JWK Set cache.
