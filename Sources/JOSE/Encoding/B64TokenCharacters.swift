import CBase64URL

/// The characters of RFC 6750's `b64token` (§2.1): `ALPHA / DIGIT / "-" / "." / "_" / "~" / "+" / "/"`,
/// checked sixteen bytes per step where the CPU allows (a bearer token is hundreds of bytes, read on every request).
package enum B64TokenCharacters {
    /// Whether every byte of `bytes` is a `b64token` character (`=` padding is not; `true` when empty).
    package static func all(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let base = bytes.baseAddress, !bytes.isEmpty else { return true }
        return cjose_all_b64token_characters(base, bytes.count) == 1
    }
}
