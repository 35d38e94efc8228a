import JOSE

/// Error codes of ID Token parsing and validation (OpenID Connect Core §3.1.3.7,
/// §3.2.2.11, §3.3.2.12, §12.2). Each rule has its own code.
