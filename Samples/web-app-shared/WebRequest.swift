import Foundation
import OIDC

/// A request as the routes (``WebApp``) read it, whatever the web framework: each app's glue makes one
/// from its framework's request (HummingbirdGlue.swift, VaporGlue.swift).
struct WebRequest: Sendable {
    /// The method, upper case (`GET`).
    var method: String
    /// The query after `?`, percent-encoded as it came; `nil` when the URL has none.
    var query: String?
    /// The header fields as they came.
    var headers: HeaderFields

    /// The value of the cookie `name` from the `Cookie` header fields (the first one of that name), or `nil`.
    func cookie(_ name: String) -> String? {
        for field in headers.values(for: "Cookie") {
            for pair in field.split(separator: ";") {
                let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                guard parts.count == 2, parts[0].trimmingCharacters(in: .whitespaces) == name else { continue }
                return parts[1].trimmingCharacters(in: .whitespaces)
            }
        }
        return nil
    }

    /// The first query parameter `name`, percent-decoded (`+` as a space, as forms send it), or `nil`.
    func queryParameter(_ name: String) -> String? {
        for pair in (query ?? "").split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard let key = parts.first.flatMap({ Self.decode($0) }), key == name else { continue }
            return parts.count == 2 ? Self.decode(parts[1]) ?? "" : ""
        }
        return nil
    }

    private static func decode(_ text: Substring) -> String? {
        text.replacingOccurrences(of: "+", with: " ").removingPercentEncoding
    }
}

/// The routes' answers: the toolkit's `TransportResponse` (status, header fields, body), never cached.
enum WebAnswer {
    /// A `text/plain` answer.
    static func text(_ status: Int, _ text: String) -> TransportResponse {
        TransportResponse(status: status, headers: ["Content-Type": "text/plain; charset=utf-8", "Cache-Control": "no-store"], body: Array(text.utf8))
    }

    /// An `application/json` answer.
    static func json(_ status: Int, _ text: String) -> TransportResponse { json(status, bytes: Array(text.utf8)) }

    /// An `application/json` answer from its bytes.
    static func json(_ status: Int, bytes: [UInt8]) -> TransportResponse {
        TransportResponse(status: status, headers: ["Content-Type": "application/json", "Cache-Control": "no-store"], body: bytes)
    }
}
