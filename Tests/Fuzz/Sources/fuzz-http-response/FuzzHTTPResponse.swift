// jwt-inspect's HTTP/1.1 response reader (status line, headers, Content-Length,
// chunked bodies). The reader's two source files are linked in from
// Sources/jwt-inspect (an executable target cannot be a dependency).
// Beyond "never crashes": a body is never larger than the limit, Content-Length
// bodies are exactly that long, and the message of every refusal is terminal-safe.
import FuzzSupport

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let raw = Fuzz.bytes(data, size)
    for limit in [16, 1 << 20] {
        do {
            let response = try HTTPResponseParser.parse(raw, limit: limit)
            guard response.body.count <= limit, (100...599).contains(response.status) else {
                fatalError("fuzz-http-response: body \(response.body.count) > limit \(limit) or status \(response.status)")
            }
            if let length = response.headers.first(where: { $0.name == "content-length" }), Int(length.value) != response.body.count {
                fatalError("fuzz-http-response: Content-Length \(length.value) but body \(response.body.count)")
            }
            blackHole(response)
        } catch {
            guard TerminalText.escape(error.message) == error.message else {
                fatalError("fuzz-http-response: unescaped control character in \"\(error.message.debugDescription)\"")
            }
            blackHole(error)
        }
    }
    return 0
}

@main
enum FuzzMain {
    static func main() { Fuzz.main { fuzz($0 ?? Fuzz.emptyInput, $1) } }
}
