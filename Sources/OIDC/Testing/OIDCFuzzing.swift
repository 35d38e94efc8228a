/// Entry points for the libFuzzer harness in `Tests/Fuzz`, not for applications.
///
/// The harness is a separate package and cannot see `package` symbols; each member
/// forwards to the one implementation the library itself uses.
@_spi(Testing) public enum OIDCFuzzing {
    /// `application/x-www-form-urlencoded` parsing (``OIDCError`` `.invalidPercentEncoding`).
    public static func parseForm(_ text: String) throws -> [(name: String, value: String)] {
        try FormURLEncoding.parse(text)
    }

    /// Percent-decoding without `+` as a space (``OIDCError`` `.invalidPercentEncoding`).
    public static func percentDecode(_ text: String) throws -> String {
        try FormURLEncoding.decode(text, plusAsSpace: false)
    }
}
