import JOSE
import OIDCCore

/// Reads the bearer token of a request the way RFC 6750 §2 allows.
///
/// - `Authorization: Bearer <b64token>` (§2.1): exactly one `Authorization` field, the
///   scheme `Bearer` (any case), one or more spaces, then one `b64token`
///   (`ALPHA DIGIT - . _ ~ + /` followed by `=` padding only) and nothing else.
/// - The form body (§2.2) or the query (§2.3) only when ``source`` enables it — never
///   both — and a request that uses more than one method is refused (§3.1 `invalid_request`).
public struct BearerTokenExtractor: Sendable {
    /// Where a token may be besides the `Authorization` header.
    public enum Source: Sendable, Hashable {
        /// The `Authorization` header only (the default, and RFC 6750's recommendation).
        case headerOnly
        /// Also an `access_token` member of an `application/x-www-form-urlencoded` body of a
        /// request other than GET (RFC 6750 §2.2).
        case headerOrFormBody
        /// Also an `access_token` query parameter (RFC 6750 §2.3; exposes the token to logs).
        case headerOrQuery
    }

    /// The enabled sources.
    public let source: Source

    /// Creates an extractor.
    public init(source: Source = .headerOnly) { self.source = source }

    /// The token of a request.
    /// - Parameters:
    ///   - headers: the request's header fields.
    ///   - method: the HTTP method (`GET` bodies are never read).
    ///   - query: the raw query string (without `?`), if any.
    ///   - body: the raw body, if any.
    /// - Throws: ``/OIDCCore/OIDCError`` `.missingBearerToken` (RFC 6750 §3.1: answer with a challenge without
    ///   an error code), `.invalidBearerRequest` (`invalid_request`, 400) for a malformed or repeated token.
    public func token(headers: HeaderFields, method: String = "GET", query: String? = nil, body: [UInt8]? = nil) throws -> String {
        var found: [String] = []
        let authorizations = headers.values(for: "Authorization")
        if authorizations.count > 1 {
            throw OIDCError(.invalidBearerRequest, "the request has \(authorizations.count) Authorization header fields")
        }
        if let authorization = authorizations.first, let token = try Self.headerToken(authorization) {
            found.append(token)
        }
        switch source {
        case .headerOnly:
            break
        case .headerOrFormBody:
            if method.uppercased() != "GET", let body, Self.isFormBody(headers) {
                found += try Self.accessTokenParameters(String(decoding: body, as: UTF8.self), where: "body")
            }
        case .headerOrQuery:
            if let query { found += try Self.accessTokenParameters(query, where: "query") }
        }
        guard found.count <= 1 else {
            throw OIDCError(.invalidBearerRequest, "the request carries the access token more than once (RFC 6750 §3.1)")
        }
        guard let token = found.first else { throw OIDCError(.missingBearerToken, "the request carries no bearer token") }
        return token
    }

    /// The token of an `Authorization` value with the Bearer scheme; `nil` for another scheme.
    static func headerToken(_ value: String) throws -> String? {
        try headerToken(value, scheme: .bearer)
    }

    /// The token of an `Authorization` value with `scheme` (case-insensitive, RFC 9110 §11.1): one or
    /// more spaces, then one `b64token` and nothing else; `nil` for another scheme. Reads the value's
    /// bytes in place (the validation's hot path).
    /// - Throws: `.invalidBearerRequest` for the scheme without a single `b64token`.
    static func headerToken(_ value: String, scheme: AuthorizationScheme) throws -> String? {
        try headerTokenText(value, scheme: scheme).map(String.init)
    }

    /// ``headerToken(_:scheme:)`` as a part of `value`, not copied.
    static func headerTokenText(_ value: String, scheme: AuthorizationScheme) throws -> Substring? {
        let offset = try withBytes(of: value) { bytes throws -> Int? in
            let name: StaticString = scheme == .bearer ? "bearer" : "dpop"
            let nameCount = name.utf8CodeUnitCount
            guard bytes.count >= nameCount else { return nil }
            let wanted = name.utf8Start
            for position in 0..<nameCount where lower(bytes[position]) != wanted[position] { return nil }
            var index = nameCount
            guard index < bytes.count else {
                throw OIDCError(.invalidBearerRequest, "the Authorization header has the \(scheme.rawValue) scheme and no token")
            }
            guard bytes[index] == 0x20 else { return nil }  // another scheme starting with the name, e.g. "BearerX"
            while index < bytes.count, bytes[index] == 0x20 { index += 1 }
            guard isB64Token(buffer: UnsafeBufferPointer(rebasing: bytes[index...])) else {
                throw OIDCError(.invalidBearerRequest, "the \(scheme.rawValue) credentials are not a single b64token (RFC 6750 §2.1)")
            }
            return index
        }
        guard let offset else { return nil }
        return value[value.utf8.index(value.utf8.startIndex, offsetBy: offset)...]
    }

    /// Calls `body` with the UTF-8 bytes of `text`, read in place for a native string (no `var` copy:
    /// a retain of a header value that several requests' tasks share is a write to shared memory).
    private static func withBytes<R>(of text: String, _ body: (UnsafeBufferPointer<UInt8>) throws -> R) rethrows -> R {
        if let result = try text.utf8.withContiguousStorageIfAvailable(body) { return result }
        var copy = text
        return try copy.withUTF8(body)
    }

    /// The scheme and token of the request's one `Authorization` field, `nil` when it has none or
    /// one with another scheme.
    /// - Throws: `.invalidBearerRequest` for more than one `Authorization` field or malformed credentials.
    /// The token is a part of the field's value, not copied.
    static func credentials(_ headers: HeaderFields) throws -> (scheme: AuthorizationScheme, token: Substring)? {
        let (count, value) = field(headers, named: "authorization")
        guard count <= 1 else {
            throw OIDCError(.invalidBearerRequest, "the request has \(count) Authorization header fields")
        }
        guard let value else { return nil }
        if let token = try headerTokenText(value, scheme: .bearer) { return (.bearer, token) }
        return try headerTokenText(value, scheme: .dpop).map { (.dpop, $0) }
    }

    /// How many fields are named `lowercaseName` (compared case-insensitively, without allocating),
    /// and the last one's value.
    static func field(_ headers: HeaderFields, named lowercaseName: String) -> (count: Int, value: String?) {
        var count = 0
        var value: String?
        withBytes(of: lowercaseName) { wanted in
            for index in headers.fields.indices where headers.fields[index].name.utf8.count == wanted.count {
                let matches = withBytes(of: headers.fields[index].name) { name in
                    for position in 0..<wanted.count where lower(name[position]) != wanted[position] { return false }
                    return true
                }
                if matches {
                    count += 1
                    value = headers.fields[index].value
                }
            }
        }
        return (count, value)
    }

    /// `b64token = 1*( ALPHA / DIGIT / "-" / "." / "_" / "~" / "+" / "/" ) *"="`
    package static func isB64Token<Bytes: Collection>(_ bytes: Bytes) -> Bool where Bytes.Element == UInt8 {
        if let result = bytes.withContiguousStorageIfAvailable(isB64Token(buffer:)) { return result }
        return Array(bytes).withUnsafeBufferPointer(isB64Token(buffer:))
    }

    /// The `b64token` rule on contiguous bytes: token characters, at least one, then only `=`. Equivalently
    /// (`=` is no token character): without its trailing run of `=`, the text is non-empty and all token characters.
    private static func isB64Token(buffer: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let base = buffer.baseAddress else { return false }
        var end = buffer.count
        while end > 0, base[end - 1] == UInt8(ascii: "=") { end -= 1 }
        guard end > 0 else { return false }
        return B64TokenCharacters.all(UnsafeBufferPointer(start: base, count: end))
    }

    private static func lower(_ byte: UInt8) -> UInt8 {
        (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) ? byte + 32 : byte
    }

    private static func isFormBody(_ headers: HeaderFields) -> Bool {
        MediaType.essence(of: headers["Content-Type"]) == MediaType.form
    }

    private static func accessTokenParameters(_ text: String, where place: String) throws -> [String] {
        let pairs: [(name: String, value: String)]
        do {
            pairs = try FormURLEncoding.parse(text)
        } catch let error as OIDCError {
            throw OIDCError(.invalidBearerRequest, "the request \(place) is not form-encoded: \(error.reason)")
        }
        return try pairs.filter { $0.name == "access_token" }.map { pair in
            guard isB64Token(pair.value.utf8) else {
                throw OIDCError(.invalidBearerRequest, "the access_token in the \(place) is not a b64token")
            }
            return pair.value
        }
    }
}
