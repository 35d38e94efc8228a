import JOSE

/// Turns an OAuth endpoint's failed HTTP response into the right typed error
/// (the fetch itself is ``EndpointFetch``).
package enum EndpointResponse {
    /// The typed error for a non-success response. An OAuth error object is
    /// recognised whatever the Content-Type says (some providers label JSON `text/html`).
    package static func error(for response: TransportResponse, what: String) -> OIDCError {
        if let object = try? JSONParser.parseObject(response.body, what: "error"), let code = object["error"]?.stringValue {
            let oauth = OAuthError(
                error: code, errorDescription: object["error_description"]?.stringValue,
                errorURI: object["error_uri"]?.stringValue)
            return OIDCError(
                .oauthError, "the \(what) endpoint refused the request (HTTP \(response.status)): \(oauth)",
                oauthError: oauth, httpStatus: response.status)
        }
        if (300..<400).contains(response.status) {
            return OIDCError(
                .unexpectedRedirect, "the \(what) endpoint redirected (HTTP \(response.status)); such requests never follow redirects",
                httpStatus: response.status)
        }
        if response.status == 401, let challenge = response.headers["WWW-Authenticate"], challenge.lowercased().hasPrefix("bearer") {
            let code = challengeParameter("error", in: challenge) ?? "invalid_token"
            let oauth = OAuthError(error: code, errorDescription: challengeParameter("error_description", in: challenge))
            return OIDCError(.invalidToken, "the \(what) endpoint refused the access token (HTTP 401): \(oauth)", oauthError: oauth, httpStatus: 401)
        }
        if response.body.isEmpty {
            return OIDCError(
                response.status >= 500 ? .endpointServerError : .emptyEndpointResponse,
                "the \(what) endpoint answered HTTP \(response.status) with an empty body", httpStatus: response.status)
        }
        if response.status >= 500 {
            return OIDCError(
                .endpointServerError, "the \(what) endpoint failed with HTTP \(response.status): \(excerpt(response.body))",
                httpStatus: response.status)
        }
        if (try? JSONParser.parse(response.body)) == nil {
            return OIDCError(
                .invalidEndpointResponse, "the \(what) endpoint answered HTTP \(response.status) with \(kind(of: response)): \(excerpt(response.body))",
                httpStatus: response.status)
        }
        return OIDCError(
            .unexpectedEndpointStatus, "the \(what) endpoint answered HTTP \(response.status): \(excerpt(response.body))",
            httpStatus: response.status)
    }

    package static func kind(of response: TransportResponse) -> String {
        let type = response.headers["Content-Type"]?.lowercased() ?? ""
        if type.contains("html") || response.body.starts(with: Array("<".utf8)) { return "an HTML page" }
        return "a body that is not JSON"
    }

    /// At most 200 printable characters of a body, for error messages. Token
    /// endpoints do not echo secrets in error pages; long Base64URL-like runs are
    /// masked anyway in case a server reflects the request.
    package static func excerpt(_ body: [UInt8]) -> String {
        let text = String(decoding: body.prefix(400), as: UTF8.self)
        var out = ""
        var run = ""
        func flush() { out += run.count >= 24 ? "[redacted]" : run; run = "" }
        for character in text.unicodeScalars {
            if character.properties.isAlphabetic || ("0"..."9").contains(character) || character == "-" || character == "_" || character == "." {
                run.unicodeScalars.append(character)
            } else {
                flush()
                out.unicodeScalars.append(character.value < 0x20 ? " " : character)
            }
        }
        flush()
        let trimmed = String(out.prefix(200))
        return trimmed.count < out.count ? trimmed + "…" : trimmed
    }

    package static func challengeParameter(_ name: String, in challenge: String) -> String? {
        // Parameters look like  name="value"  separated by commas.
        for part in challenge.split(separator: ",") {
            let pieces = part.split(separator: "=", maxSplits: 1)
            guard pieces.count == 2 else { continue }
            var key = Substring(pieces[0])
            if key.lowercased().hasPrefix("bearer ") { key = key.dropFirst(7) }
            guard String(key.filter { $0 != " " }) == name else { continue }
            return String(pieces[1].drop(while: { $0 == " " }).filter { $0 != "\"" })
        }
        return nil
    }
}
