/// The challenges of `WWW-Authenticate` field values (RFC 9110 §11.6.1): a scheme, then `name=value` or
/// `name="quoted value"` parameters; one field value may carry several challenges separated by commas.
/// `token68` credentials are skipped. Used to read `resource_metadata` (RFC 9728 §5.1) from a 401.
package struct AuthenticateChallenge: Sendable, Hashable {
    /// The scheme, lowercased (`bearer`, `dpop`).
    package var scheme: String
    /// The parameters, names lowercased, in order.
    package var parameters: [(name: String, value: String)]

    package static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.scheme == rhs.scheme && lhs.parameters.elementsEqual(rhs.parameters) { $0 == $1 }
    }

    package func hash(into hasher: inout Hasher) {
        hasher.combine(scheme)
        for parameter in parameters { hasher.combine(parameter.name); hasher.combine(parameter.value) }
    }

    /// The first value of parameter `name` (case-insensitive name).
    package func parameter(_ name: String) -> String? {
        let name = name.lowercased()
        return parameters.first { $0.name == name }?.value
    }

    /// Every challenge of `values` (the `WWW-Authenticate` field values of one response); a value that is
    /// malformed from some point on gives the challenges read before it.
    package static func parse(_ values: [String]) -> [AuthenticateChallenge] {
        values.flatMap { parse(Array($0.unicodeScalars)) }
    }

    private static func isTokenCharacter(_ c: Unicode.Scalar) -> Bool {
        if c.properties.isASCIIHexDigit || ("a"..."z").contains(c) || ("A"..."Z").contains(c) { return true }
        return "!#$%&'*+-.^_`|~".unicodeScalars.contains(c)
    }

    private static func parse(_ s: [Unicode.Scalar]) -> [AuthenticateChallenge] {
        var index = 0
        var result: [AuthenticateChallenge] = []
        func skipSpace() { while index < s.count, s[index] == " " || s[index] == "\t" { index += 1 } }
        func token() -> String {
            var text = ""
            while index < s.count, isTokenCharacter(s[index]) || ("0"..."9").contains(s[index]) {
                text.unicodeScalars.append(s[index]); index += 1
            }
            return text
        }
        while index < s.count {
            skipSpace()
            while index < s.count, s[index] == "," { index += 1; skipSpace() }
            let scheme = token()
            guard !scheme.isEmpty else { return result }
            var challenge = AuthenticateChallenge(scheme: scheme.lowercased(), parameters: [])
            // Parameters until the next scheme (a token not followed by "=").
            while true {
                skipSpace()
                while index < s.count, s[index] == "," { index += 1; skipSpace() }
                let start = index
                let name = token()
                skipSpace()
                guard !name.isEmpty, index < s.count, s[index] == "=" else {
                    if !name.isEmpty { index = start }  // a token without "=": the next challenge's scheme
                    break
                }
                index += 1
                skipSpace()
                var value = ""
                if index < s.count, s[index] == "\"" {
                    index += 1
                    var closed = false
                    while index < s.count {
                        let c = s[index]
                        index += 1
                        if c == "\\", index < s.count { value.unicodeScalars.append(s[index]); index += 1; continue }
                        if c == "\"" { closed = true; break }
                        value.unicodeScalars.append(c)
                    }
                    guard closed else { result.append(challenge); return result }
                } else {
                    value = token()
                    while index < s.count, s[index] == "=" { index += 1 }  // token68 padding
                }
                challenge.parameters.append((name.lowercased(), value))
            }
            result.append(challenge)
            if index < s.count, !isTokenCharacter(s[index]) && !("0"..."9").contains(s[index]) && s[index] != "," && s[index] != " " {
                return result
            }
        }
        return result
    }
}
