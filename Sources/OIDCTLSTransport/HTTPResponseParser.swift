/// A complete HTTP/1.1 response as the tool's client reads it.
package struct ParsedHTTPResponse: Equatable {
    package let status: Int
    package let headers: [HTTPField]
    package let body: [UInt8]
}

/// One header field; the name lower-cased, the value without surrounding blanks.
package struct HTTPField: Equatable {
    package let name: String
    package let value: String
}

/// Why a response could not be read; `message` is already safe to print (server text escaped).
package struct HTTPParseError: Error, Equatable {
    package let message: String
    package init(_ message: String) { self.message = message }
}

/// Parses the bytes of a whole HTTP/1.1 response (the connection is closed after
/// it). A pure function over bytes, so it can be fuzzed (Tests/Fuzz fuzz-http-response).
///
/// Rules: the status line is `HTTP/1.x NNN ...`; the head ends at the first empty line
/// and is at most ``maxHeadBytes``; every header line has a name and a colon, folded
/// lines are refused; `Content-Length` is one run of decimal digits, appears at most
/// once and is at most `limit`; `Transfer-Encoding` is exactly `chunked`, appears at
/// most once and never together with `Content-Length`; chunk sizes are hexadecimal
/// digits whose sum never exceeds `limit` (every sum is overflow-checked); a chunked
/// body ends with its zero-size chunk. Without either header the body runs to the end, which is
/// accepted only when `bodyMayEndAtClose` says the end itself is trustworthy (a TLS `close_notify`).
package enum HTTPResponseParser {
    package static let maxHeadBytes = 64 << 10

    /// - Parameter bodyMayEndAtClose: `false` when the connection ended without TLS `close_notify`: a body
    ///   without `Content-Length` or chunked framing is then refused, since a cut could not be told from the end.
    package static func parse(_ raw: [UInt8], limit: Int, bodyMayEndAtClose: Bool = true) throws(HTTPParseError) -> ParsedHTTPResponse {
        guard let headEnd = find([13, 10, 13, 10], in: raw[...], upTo: maxHeadBytes + 4) else {
            throw HTTPParseError(raw.count > maxHeadBytes ? "the response head exceeds \(maxHeadBytes) bytes" : "no complete HTTP response head")
        }
        let lines = split(raw[0..<headEnd])
        let status = try statusCode(lines[0])
        var headers: [HTTPField] = []
        for line in lines.dropFirst() { headers.append(try field(line)) }

        let lengths = headers.filter { $0.name == "content-length" }
        let codings = headers.filter { $0.name == "transfer-encoding" }
        let rest = raw[(headEnd + 4)...]
        if !codings.isEmpty {
            guard lengths.isEmpty else { throw HTTPParseError("the response has both Transfer-Encoding and Content-Length") }
            guard codings.count == 1 else { throw HTTPParseError("the response has several Transfer-Encoding headers") }
            guard codings[0].value.lowercased() == "chunked" else {
                throw HTTPParseError("unsupported Transfer-Encoding \"\(TerminalText.escape(String(codings[0].value.prefix(40))))\"")
            }
            return ParsedHTTPResponse(status: status, headers: headers, body: try dechunk(rest, limit: limit))
        }
        if !lengths.isEmpty {
            guard lengths.count == 1 else { throw HTTPParseError("the response has several Content-Length headers") }
            guard let length = decimal(lengths[0].value), length <= limit else {
                throw HTTPParseError(
                    "invalid Content-Length \"\(TerminalText.escape(String(lengths[0].value.prefix(40))))\" (a number of at most \(limit) bytes)")
            }
            guard rest.count >= length else { throw HTTPParseError("the body is shorter than its Content-Length") }
            return ParsedHTTPResponse(status: status, headers: headers, body: Array(rest.prefix(length)))
        }
        guard rest.count <= limit else { throw HTTPParseError("the body exceeds \(limit) bytes") }
        guard bodyMayEndAtClose || !mayHaveBody(status) else {
            throw HTTPParseError(
                "the response has no Content-Length or chunked framing and the TLS connection ended without close_notify: "
                    + "the body may have been cut short")
        }
        return ParsedHTTPResponse(status: status, headers: headers, body: Array(rest))
    }

    /// Whether a response with `status` to a request other than HEAD can carry a body (RFC 9110 §6.4.1:
    /// 1xx, 204 and 304 never do, so their end needs no framing).
    static func mayHaveBody(_ status: Int) -> Bool { !(100...199).contains(status) && status != 204 && status != 304 }

    /// `HTTP/1.x NNN reason`.
    static func statusCode(_ line: ArraySlice<UInt8>) throws(HTTPParseError) -> Int {
        let bytes = Array(line)
        let prefix = Array("HTTP/1.".utf8)
        guard bytes.count >= 12, Array(bytes[0..<7]) == prefix, bytes[7] == UInt8(ascii: "0") || bytes[7] == UInt8(ascii: "1"),
            bytes[8] == 0x20, bytes[12...].first.map({ $0 == 0x20 }) ?? true,
            let status = decimal(String(decoding: bytes[9..<12], as: UTF8.self)), (100...599).contains(status)
        else {
            throw HTTPParseError("the server did not answer with an HTTP/1.x status line")
        }
        return status
    }

    static func field(_ line: ArraySlice<UInt8>) throws(HTTPParseError) -> HTTPField {
        guard let colon = line.firstIndex(of: UInt8(ascii: ":")), colon > line.startIndex else {
            throw HTTPParseError("a header line has no name")
        }
        let name = line[line.startIndex..<colon]
        // RFC 9110 token characters only: no blanks (so no obsolete line folding) and no controls.
        guard name.allSatisfy({ $0 > 0x20 && $0 < 0x7F && !"\"(),/:;<=>?@[\\]{}".utf8.contains($0) }) else {
            throw HTTPParseError("a header name is not a token")
        }
        var value = line[(colon + 1)...]
        while let first = value.first, first == 0x20 || first == 0x09 { value.removeFirst() }
        while let last = value.last, last == 0x20 || last == 0x09 { value.removeLast() }
        return HTTPField(name: String(decoding: name, as: UTF8.self).lowercased(), value: String(decoding: value, as: UTF8.self))
    }

    /// A non-negative decimal number of at most 18 digits (so it cannot overflow), else `nil`.
    static func decimal(_ text: String) -> Int? {
        let digits = Array(text.utf8)
        guard !digits.isEmpty, digits.count <= 18, digits.allSatisfy({ (0x30...0x39).contains($0) }) else { return nil }
        return digits.reduce(0) { $0 * 10 + Int($1 - 0x30) }
    }

    static func dechunk(_ body: ArraySlice<UInt8>, limit: Int) throws(HTTPParseError) -> [UInt8] {
        var out: [UInt8] = []
        var index = body.startIndex
        while true {
            guard let lineEnd = find([13, 10], in: body[index...], upTo: 1024) else { throw HTTPParseError("a chunk size line is malformed or missing") }
            var sizeEnd = index
            while sizeEnd < lineEnd, hexValue(body[sizeEnd]) != nil { sizeEnd += 1 }
            // Digits, then nothing, blanks or a `;` chunk extension.
            guard sizeEnd > index, sizeEnd == lineEnd || body[sizeEnd] == UInt8(ascii: ";") || body[sizeEnd] == 0x20 || body[sizeEnd] == 0x09 else {
                throw HTTPParseError("a chunk size is not a hexadecimal number")
            }
            var size = 0
            for digit in body[index..<sizeEnd] {
                guard let value = hexValue(digit), size <= (limit - value) / 16 else { throw HTTPParseError("a chunk exceeds the \(limit)-byte limit") }
                size = size * 16 + value
            }
            index = lineEnd + 2
            if size == 0 { return out }  // trailers, if any, are not needed
            guard size <= limit - out.count else { throw HTTPParseError("the chunked body exceeds \(limit) bytes") }
            guard body.endIndex - index >= size + 2 else { throw HTTPParseError("a chunk is truncated") }
            guard body[index + size] == 13, body[index + size + 1] == 10 else { throw HTTPParseError("a chunk is not followed by CRLF") }
            out += body[index..<index + size]
            index += size + 2
        }
    }

    private static func hexValue(_ byte: UInt8) -> Int? {
        switch byte {
        case 0x30...0x39: return Int(byte - 0x30)
        case 0x41...0x46: return Int(byte - 0x41 + 10)
        case 0x61...0x66: return Int(byte - 0x61 + 10)
        default: return nil
        }
    }

    /// Lines of the head, split at CRLF.
    private static func split(_ head: ArraySlice<UInt8>) -> [ArraySlice<UInt8>] {
        var lines: [ArraySlice<UInt8>] = []
        var start = head.startIndex
        while let end = find([13, 10], in: head[start...], upTo: head.count) {
            lines.append(head[start..<end])
            start = end + 2
        }
        lines.append(head[start...])
        return lines
    }

    /// The index of `needle` in `haystack`, looking no further than `upTo` bytes from its start.
    static func find(_ needle: [UInt8], in haystack: ArraySlice<UInt8>, upTo: Int) -> Int? {
        let end = haystack.startIndex + Swift.min(haystack.count, upTo)
        guard end - haystack.startIndex >= needle.count else { return nil }
        var start = haystack.startIndex
        while start + needle.count <= end {
            if haystack[start] == needle[0], haystack[start..<start + needle.count].elementsEqual(needle) { return start }
            start += 1
        }
        return nil
    }
}
