extension String {
    /// Calls `body` with the string's UTF-8 bytes, read in place for a native
    /// string. (A `var` copy for `withUTF8` would retain the storage: a write to
    /// shared memory when several threads verify one token.)
    func withUTF8InPlace<R>(_ body: (UnsafeBufferPointer<UInt8>) throws -> R) rethrows -> R {
        if let result = try utf8.withContiguousStorageIfAvailable(body) { return result }
        var copy = self
        return try copy.withUTF8(body)
    }
}
