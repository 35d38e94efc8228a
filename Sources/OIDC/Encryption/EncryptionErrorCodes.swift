import JOSE

/// Error codes of encrypted and signed responses: encrypted ID Tokens, signed or encrypted
/// UserInfo, JARM responses, encrypted introspection answers.
