/// The RFC 9901 §7.1 processing of an issuer-signed payload with disclosures, the one walk that both the
/// verifier and the holder use: each digest looked up once, disclosed values put in place (recursively),
/// `_sd`, `_sd_alg` and undisclosed array elements removed, and each disclosure's JSON Pointer recorded.
struct SDJWTProcessing {
    let algorithm: SDJWTHashAlgorithm
    let disclosures: [SDJWTDisclosure]
    /// The digest of each disclosure, in order.
    let digests: [String]
    private var byDigest: [String: Int] = [:]
    private var seen: Set<String> = []
    /// Where each disclosure was placed, by disclosure index: the path of its value in the fully disclosed payload
    /// (`nil` until placed).
    private(set) var paths: [[String]?]
    /// How many disclosures have been placed.
    private var placed = 0
    private let maxDepth: Int
    /// The path of the value being processed: pushed and popped as the walk goes (no array built per member).
    private var path: [String] = []

    /// - Throws: ``JOSEError`` `.sdRepeatedDisclosure` when a disclosure is given twice.
    init(disclosures: [SDJWTDisclosure], algorithm: SDJWTHashAlgorithm, maxDepth: Int) throws {
        self.algorithm = algorithm
        self.disclosures = disclosures
        self.maxDepth = maxDepth
        self.paths = Array(repeating: nil, count: disclosures.count)
        byDigest.reserveCapacity(disclosures.count)
        var digests: [String] = []
        digests.reserveCapacity(disclosures.count)
        for (index, disclosure) in disclosures.enumerated() {
            let digest = disclosure.digest(algorithm)
            guard byDigest.updateValue(index, forKey: digest) == nil else {
                throw JOSEError(.sdRepeatedDisclosure, "disclosure \(index + 1) is given twice")
            }
            digests.append(digest)
        }
        self.digests = digests
    }

    /// Processes the top-level payload and checks that every disclosure was referenced.
    /// - Throws: ``JOSEError``: `.sdDuplicateDigest`, `.sdMisplacedDisclosure`, `.sdClaimNameConflict`,
    ///   `.sdMalformedPayload`, `.sdUnreferencedDisclosure`, `.limitExceeded`.
    mutating func process(payload: JSONObject) throws -> JSONObject {
        let result = try process(object: payload, depth: 0, topLevel: true)
        if placed != disclosures.count {
            let missing = (0..<disclosures.count).first { paths[$0] == nil } ?? 0
            throw JOSEError(
                .sdUnreferencedDisclosure,
                "disclosure \(missing + 1)'s digest appears nowhere in the payload or in the disclosures presented (a foreign or altered disclosure)")
        }
        return result
    }

    private mutating func place(_ index: Int, at component: String) {
        // Made at its final size: copying `path` and then appending would allocate and grow the copy.
        var placedAt: [String] = []
        placedAt.reserveCapacity(path.count + 1)
        placedAt.append(contentsOf: path)
        placedAt.append(component)
        paths[index] = placedAt
        placed += 1
    }

    /// The disclosure whose digest is `digest` (`nil` for a decoy or an undisclosed claim), refusing a digest met before:
    /// a disclosure's digest is met again when its disclosure is already placed, any other digest when it is in ``seen``.
    private mutating func disclosureIndex(_ digest: String) throws -> Int? {
        if let index = byDigest[digest] {
            guard paths[index] == nil else { throw JOSEError(.sdDuplicateDigest, "a digest appears more than once in the payload") }
            return index
        }
        guard seen.insert(digest).inserted else {
            throw JOSEError(.sdDuplicateDigest, "a digest appears more than once in the payload")
        }
        return nil
    }

    /// `value` processed, at `path` + `component`.
    private mutating func process(value: JSONValue, at component: String, depth: Int) throws -> JSONValue {
        switch value {
        case .object(let object):
            path.append(component)
            defer { path.removeLast() }
            return .object(try process(object: object, depth: depth, topLevel: false))
        case .array(let array):
            path.append(component)
            defer { path.removeLast() }
            return .array(try process(array: array, depth: depth))
        default: return value
        }
    }

    private mutating func process(object: JSONObject, depth: Int, topLevel: Bool) throws -> JSONObject {
        guard depth <= maxDepth else { throw JOSEError(.limitExceeded, "the disclosed payload is nested deeper than \(maxDepth) levels") }
        var result = JSONObject()
        result.reserveCapacity(object.count)
        var sd: JSONValue?
        // The object's names are unique (the parser refuses duplicates): its members are appended without a search.
        for member in object {
            if member.name == "_sd" {
                sd = member.value
                continue
            }
            if topLevel && member.name == "_sd_alg" { continue }
            result.appendUnique(member.name, try process(value: member.value, at: member.name, depth: depth + 1))
        }
        guard let sd else { return result }
        guard let digests = sd.arrayValue else { throw JOSEError(.sdMalformedPayload, "\"_sd\" must be an array of digests", member: "_sd") }
        // Room for every digest to be disclosed (decoys included: the array is the issuer-signed payload's, already bounded).
        result.reserveCapacity(result.count + digests.count)
        for entry in digests {
            guard let digest = entry.stringValue else { throw JOSEError(.sdMalformedPayload, "\"_sd\" holds a value that is not a string", member: "_sd") }
            guard let index = try disclosureIndex(digest) else { continue }  // a decoy, or a claim not disclosed
            let disclosure = disclosures[index]
            guard let name = disclosure.name else {
                throw JOSEError(.sdMisplacedDisclosure, "disclosure \(index + 1) is an array element but its digest is in an object's \"_sd\"")
            }
            guard !result.hasMember(named: name) else {
                throw JOSEError(
                    .sdClaimNameConflict, "disclosure \(index + 1) discloses \"\(name.jsonSafePrefix)\", already present at that level", member: name)
            }
            place(index, at: name)
            result.appendUnique(name, try process(value: disclosure.value, at: name, depth: depth + 1))
        }
        return result
    }

    private mutating func process(array: [JSONValue], depth: Int) throws -> [JSONValue] {
        guard depth <= maxDepth else { throw JOSEError(.limitExceeded, "the disclosed payload is nested deeper than \(maxDepth) levels") }
        var result: [JSONValue] = []
        result.reserveCapacity(array.count)
        for (position, element) in array.enumerated() {
            guard case .object(let object) = element, object.count == 1, let reference = object["..."] else {
                result.append(try process(value: element, at: String(position), depth: depth + 1))
                continue
            }
            guard let digest = reference.stringValue else {
                throw JOSEError(.sdMalformedPayload, "an array element's \"...\" digest is not a string", member: "...")
            }
            guard let index = try disclosureIndex(digest) else { continue }  // undisclosed or decoy: removed
            let disclosure = disclosures[index]
            guard disclosure.name == nil else {
                throw JOSEError(.sdMisplacedDisclosure, "disclosure \(index + 1) is an object member but its digest is an array element")
            }
            place(index, at: String(position))
            result.append(try process(value: disclosure.value, at: String(position), depth: depth + 1))
        }
        return result
    }
}

/// RFC 6901 JSON Pointers: the path components of `/a/b~1c/0` are `a`, `b/c`, `0`.
enum SDJWTPointer {
    /// The components of a pointer.
    /// - Throws: ``JOSEError`` `.claimMismatch` for a pointer that is empty or does not start with `/`,
    ///   or has a `~` not followed by `0` or `1`.
    static func components(_ pointer: String) throws -> [String] {
        guard pointer.hasPrefix("/") else {
            throw JOSEError(.claimMismatch, "a JSON Pointer naming a claim starts with \"/\" (RFC 6901)")
        }
        return try pointer.dropFirst().split(separator: "/", omittingEmptySubsequences: false).map { token in
            var text = ""
            var escaped = false
            for character in token {
                if escaped {
                    switch character {
                    case "0": text.append("~")
                    case "1": text.append("/")
                    default: throw JOSEError(.claimMismatch, "a JSON Pointer has \"~\" not followed by 0 or 1")
                    }
                    escaped = false
                } else if character == "~" {
                    escaped = true
                } else {
                    text.append(character)
                }
            }
            guard !escaped else { throw JOSEError(.claimMismatch, "a JSON Pointer ends with \"~\"") }
            return text
        }
    }

    /// The pointer text of path components.
    static func text(_ components: [String]) -> String {
        var text = ""
        for component in components {
            text += "/"
            // Most names need no escape: appended whole.
            guard component.utf8.contains(where: { $0 == UInt8(ascii: "~") || $0 == UInt8(ascii: "/") }) else {
                text += component
                continue
            }
            for character in component.unicodeScalars {
                switch character {
                case "~": text += "~0"
                case "/": text += "~1"
                default: text.unicodeScalars.append(character)
                }
            }
        }
        return text
    }
}
