/// Entry points for the libFuzzer harness in `Tests/Fuzz`, not for applications.
///
/// The harness is a separate package (so that fuzzer flags reach only the modules a
/// fuzz target needs) and cannot see `package` symbols. Each member forwards to the
/// one implementation the library itself uses, so the fuzzers exercise that code.
@_spi(Testing) public enum JOSEFuzzing {
    /// Strict Base64URL decoding of raw ASCII bytes (``JOSEError`` `.invalidBase64URL`).
    public static func base64URLDecode(_ input: UnsafeBufferPointer<UInt8>) throws -> [UInt8] {
        try Base64URL.decode(input)
    }

    /// Strict Base64URL decoding of a string (``JOSEError`` `.invalidBase64URL`).
    public static func base64URLDecode(_ text: String) throws -> [UInt8] {
        try Base64URL.decode(text)
    }

    /// Unpadded Base64URL encoding.
    public static func base64URLEncode(_ bytes: some Sequence<UInt8>) -> String {
        Base64URL.encode(bytes)
    }

    /// The strict JSON parser on a buffer.
    public static func parseJSON(buffer: UnsafeBufferPointer<UInt8>, limits: JSONLimits = .default) throws -> JSONValue {
        try JSONParser.parse(buffer: buffer, limits: limits)
    }

    /// The strict JSON parser on a string.
    public static func parseJSON(_ text: String) throws -> JSONValue {
        try JSONParser.parse(text)
    }

    /// The strict JSON parser on a text that must be an object.
    public static func parseJSONObject(_ bytes: [UInt8]) throws -> JSONObject {
        try JSONParser.parseObject(bytes, what: "fuzz input")
    }
}
