/// An SD-JWT or SD-JWT+KB in compact form (RFC 9901 §4), split into its parts but not verified:
/// `<issuer-signed JWT>~<disclosure>~...~[<KB-JWT>]`.
public struct SDJWT: Sendable, Hashable {
    /// The issuer-signed JWT, as received.
    public let issuerSignedJWT: String
    /// The disclosures' encoded texts, in order.
    public let disclosures: [String]
    /// The Key Binding JWT, when the presentation ends with one.
    public let keyBindingJWT: String?

    /// Splits a compact SD-JWT: a non-empty JWS, then `~`-terminated non-empty disclosures, then an optional KB-JWT.
    /// - Throws: ``JOSEError`` `.malformedToken` (no `~`, an empty part, a KB-JWT that is not a compact JWS),
    ///   `.limitExceeded` beyond `limits.maxTokenBytes`.
    public init(_ compact: String, limits: JOSELimits = .default) throws {
        guard compact.utf8.count <= limits.maxTokenBytes else {
            throw JOSEError(.limitExceeded, "the SD-JWT is larger than \(limits.maxTokenBytes) bytes")
        }
        let parts = compact.split(separator: "~", omittingEmptySubsequences: false)
        guard parts.count >= 2 else { throw JOSEError(.malformedToken, "an SD-JWT has at least one \"~\" after the issuer-signed JWT") }
        guard !parts[0].isEmpty, parts[0].split(separator: ".", omittingEmptySubsequences: false).count == 3 else {
            throw JOSEError(.malformedToken, "the issuer-signed JWT of an SD-JWT must be a compact JWS")
        }
        let middle = parts[1..<(parts.count - 1)]
        guard !middle.contains(where: \.isEmpty) else { throw JOSEError(.malformedToken, "an SD-JWT has an empty disclosure (\"~~\")") }
        let last = parts[parts.count - 1]
        if last.isEmpty {
            keyBindingJWT = nil
        } else {
            guard last.split(separator: ".", omittingEmptySubsequences: false).count == 3 else {
                throw JOSEError(.malformedToken, "the part after the last \"~\" must be a KB-JWT (a compact JWS)")
            }
            keyBindingJWT = String(last)
        }
        issuerSignedJWT = String(parts[0])
        disclosures = middle.map(String.init)
    }

    /// An SD-JWT from its parts.
    public init(issuerSignedJWT: String, disclosures: [String], keyBindingJWT: String? = nil) {
        self.issuerSignedJWT = issuerSignedJWT
        self.disclosures = disclosures
        self.keyBindingJWT = keyBindingJWT
    }

    /// The presentation without its KB-JWT, up to and including the last `~`: what `sd_hash` is taken over.
    public var withoutKeyBinding: String {
        var text = issuerSignedJWT + "~"
        for disclosure in disclosures { text += disclosure + "~" }
        return text
    }

    /// The compact form.
    public var compact: String { withoutKeyBinding + (keyBindingJWT ?? "") }
}
