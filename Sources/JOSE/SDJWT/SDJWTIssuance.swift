#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension SDJWT {
    /// Issues an SD-JWT (RFC 9901 §4–5) with every disclosure: the members and array elements that `disclosable`
    /// names (RFC 6901 JSON Pointers into `claims`; a pointer below a disclosable one gives a recursive disclosure)
    /// are replaced by digests, each disclosure salted with 128 bits from the system's random source, `decoys`
    /// decoy digests added to the top-level `_sd`, every `_sd` sorted, `_sd_alg` set and, with `holderKey`,
    /// `cnf: {"jwk": <its public JWK>}` added.
    /// - Throws: ``JOSEError``: `.missingClaim` for a pointer naming nothing, `.claimMismatch` for a malformed
    ///   pointer, `.sdReservedClaimName` for claims named `_sd`, `_sd_alg` or `...`, `.sdClaimNameConflict` for a
    ///   `cnf` in `claims` with a holder key, `.limitExceeded` for more than 1000 decoys, and the signing errors.
    public static func issue(
        claims: JSONObject, disclosable: [String], key: JWK, algorithm: JWSAlgorithm, type: String? = nil,
        holderKey: JWK? = nil, decoys: Int = 0, hashAlgorithm: SDJWTHashAlgorithm = .sha256
    ) throws -> SDJWT {
        guard (0...1000).contains(decoys) else { throw JOSEError(.limitExceeded, "at most 1000 decoy digests") }
        var builder = Builder(algorithm: hashAlgorithm, pointers: Set(try disclosable.map(SDJWTPointer.components)))
        guard !builder.pointers.contains([]) else { throw JOSEError(.claimMismatch, "the whole claim set cannot be selectively disclosable") }
        var payload = try builder.build(object: claims, path: [], decoys: decoys)
        if let unmatched = builder.pointers.subtracting(builder.matched).min(by: { $0.count < $1.count }) {
            throw JOSEError(.missingClaim, "the pointer \(SDJWTPointer.text(unmatched).jsonSafePrefix) names no claim")
        }
        payload["_sd_alg"] = .string(hashAlgorithm.rawValue)
        if let holderKey {
            guard payload["cnf"] == nil else { throw JOSEError(.sdClaimNameConflict, "the claims already have a \"cnf\"", member: "cnf") }
            payload["cnf"] = .object(["jwk": .object(holderKey.publicJWK)])
        }
        var header = JSONObject()
        if let type { header["typ"] = .string(type) }
        let jwt = try JWT.sign(payload, key: key, algorithm: algorithm, header: header)
        return SDJWT(issuerSignedJWT: jwt, disclosures: builder.disclosures.map(\.encoded))
    }

    /// The recursive replacement of disclosable values by digests.
    private struct Builder {
        let algorithm: SDJWTHashAlgorithm
        let pointers: Set<[String]>
        var matched: Set<[String]> = []
        var disclosures: [SDJWTDisclosure] = []

        init(algorithm: SDJWTHashAlgorithm, pointers: Set<[String]>) {
            self.algorithm = algorithm
            self.pointers = pointers
        }

        mutating func build(value: JSONValue, path: [String]) throws -> JSONValue {
            switch value {
            case .object(let object): return .object(try build(object: object, path: path, decoys: 0))
            case .array(let array): return .array(try build(array: array, path: path))
            default: return value
            }
        }

        mutating func disclose(name: String?, value: JSONValue) throws -> String {
            let disclosure = SDJWTDisclosure(salt: try SDJWTDisclosure.freshSalt(), name: name, value: value)
            disclosures.append(disclosure)
            return disclosure.digest(algorithm)
        }

        mutating func build(object: JSONObject, path: [String], decoys: Int) throws -> JSONObject {
            var result = JSONObject()
            var digests: [String] = []
            for member in object {
                guard member.name != "_sd", member.name != "...", !(path.isEmpty && member.name == "_sd_alg") else {
                    throw JOSEError(.sdReservedClaimName, "a claim is named \"\(member.name)\", which SD-JWT reserves", member: member.name)
                }
                let childPath = path + [member.name]
                let value = try build(value: member.value, path: childPath)
                if pointers.contains(childPath) {
                    matched.insert(childPath)
                    digests.append(try disclose(name: member.name, value: value))
                } else {
                    result[member.name] = value
                }
            }
            for _ in 0..<decoys { digests.append(algorithm.digest(of: Base64URL.encode(try SecureRandom.bytes(16)))) }
            if !digests.isEmpty { result["_sd"] = .array(digests.sorted().map { .string($0) }) }
            return result
        }

        mutating func build(array: [JSONValue], path: [String]) throws -> [JSONValue] {
            var result: [JSONValue] = []
            for (position, element) in array.enumerated() {
                let childPath = path + [String(position)]
                let value = try build(value: element, path: childPath)
                if pointers.contains(childPath) {
                    matched.insert(childPath)
                    result.append(.object(["...": .string(try disclose(name: nil, value: value))]))
                } else {
                    result.append(value)
                }
            }
            return result
        }
    }
}
