extension StaticString {
    /// The literal as a C string that stays valid for the life of the process.
    ///
    /// libcrypto keeps some name pointers it is given (an `OSSL_PARAM`'s key, the
    /// key type of `EVP_PKEY_CTX_new_from_name`); a Swift `String` passed as
    /// `char *` lives only for one call, so such names must come from here.
    package var cString: UnsafePointer<CChar> {
        UnsafeRawPointer(utf8Start).assumingMemoryBound(to: CChar.self)
    }
}
