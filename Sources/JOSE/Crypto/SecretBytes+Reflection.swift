/// `dump` and `Mirror` of a ``JWK`` reach its secret only through ``SecretBytes``,
/// whose mirror shows the length alone (and whose bytes sit behind a raw pointer,
/// not in an array a default mirror would print). Private asymmetric keys are
/// `EVP_PKEY` pointers, which reflection shows as an address only.
///
/// `JWK` itself keeps the default mirror on purpose: the fuzz harness walks it
/// (`core.storage`) to keep process-lifetime keys visibly reachable for LeakSanitizer.
extension SecretBytes: CustomReflectable {
    /// The length only.
    var customMirror: Mirror { Mirror(self, children: ["count": count], displayStyle: .class) }
}
