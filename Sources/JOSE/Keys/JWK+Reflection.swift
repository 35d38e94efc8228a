/// `dump` and `Mirror` show what ``JWK/description`` shows: the type, size, `kid`,
/// `use`, `alg` and whether the key is private, never key material (an HMAC
/// secret's bytes, a private key's components).
extension JWK: CustomReflectable {
    /// Only the key's public labels.
    public var customMirror: Mirror {
        Mirror(self, children: ["keyType": keyType, "sizeInBits": sizeInBits, "isPrivate": isPrivate, "keyID": keyID as Any,
                                "use": use as Any, "algorithm": algorithm as Any], displayStyle: .struct)
    }
}

extension SecretBytes: CustomReflectable {
    /// The length only.
    var customMirror: Mirror { Mirror(self, children: ["count": count], displayStyle: .class) }
}
