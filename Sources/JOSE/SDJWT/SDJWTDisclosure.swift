/// One decoded disclosure of an SD-JWT (RFC 9901 §4.2): its salt, the claim name for an object member
/// (`nil` for an array element) and the value, with the exact encoded text its digest is taken over.
public struct SDJWTDisclosure: Sendable, Hashable {
    /// The Base64URL text as it appears in the SD-JWT; digests are taken over it, not over the decoded JSON.
    public let encoded: String
    /// The salt.
    public let salt: String
    /// The claim name of an object-member disclosure; `nil` for an array element.
    public let name: String?
    /// The disclosed value.
    public let value: JSONValue

    /// Decodes a disclosure: strict Base64URL of a JSON array `[salt, name, value]` or `[salt, value]`,
    /// salt and name strings.
    /// - Throws: ``JOSEError`` `.sdMalformedDisclosure`; `.sdReservedClaimName` for a name `_sd` or `...`.
    public init(encoded: String, limits: JOSELimits = .default) throws {
        // Decoded into a temporary buffer and parsed there: the decoded bytes are not kept.
        var text = encoded
        let parsed: JSONValue = try text.withUTF8 { characters in
            let outcome: Result<JSONValue, JOSEError>
            do {
                outcome = try Base64URL.withDecoded(characters) { bytes in
                    do {
                        return .success(try JSONParser.parse(buffer: bytes.assumingMemoryBound(to: UInt8.self), limits: limits.tokenJSON))
                    } catch let error as JOSEError {
                        return .failure(JOSEError(.sdMalformedDisclosure, "a disclosure is not valid JSON (\(error.code.rawValue))"))
                    }
                }
            } catch {
                throw JOSEError(.sdMalformedDisclosure, "a disclosure is not strict unpadded Base64URL")
            }
            return try outcome.get()
        }
        guard let elements = parsed.arrayValue, elements.count == 2 || elements.count == 3 else {
            throw JOSEError(.sdMalformedDisclosure, "a disclosure must be a JSON array of 2 or 3 elements")
        }
        guard let salt = elements[0].stringValue else { throw JOSEError(.sdMalformedDisclosure, "a disclosure's salt must be a string") }
        if elements.count == 3 {
            guard let name = elements[1].stringValue else { throw JOSEError(.sdMalformedDisclosure, "a disclosure's claim name must be a string") }
            guard name != "_sd", name != "..." else {
                throw JOSEError(.sdReservedClaimName, "a disclosure names the claim \"\(name)\", which is reserved", member: name)
            }
            self.name = name
        } else {
            self.name = nil
        }
        self.encoded = encoded
        self.salt = salt
        self.value = elements[elements.count - 1]
    }

    /// A new disclosure with `salt` (issuance): the compact JSON array, Base64URL-encoded.
    package init(salt: String, name: String?, value: JSONValue) {
        var elements: [JSONValue] = [.string(salt)]
        if let name { elements.append(.string(name)) }
        elements.append(value)
        self.encoded = Base64URL.encode(JSONValue.array(elements).jsonString())
        self.salt = salt
        self.name = name
        self.value = value
    }

    /// A fresh salt: 128 bits from the system's random source, Base64URL.
    static func freshSalt() throws -> String { Base64URL.encode(try SecureRandom.bytes(16)) }

    /// The Base64URL digest of ``encoded`` with `algorithm`.
    public func digest(_ algorithm: SDJWTHashAlgorithm) -> String { algorithm.digest(of: encoded) }
}
