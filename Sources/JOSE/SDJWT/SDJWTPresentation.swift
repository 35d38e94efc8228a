#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension SDJWT {
    /// A presentation of this (issued) SD-JWT with only the disclosures that reveal each pointer: those on the way
    /// to it (the parents of nested ones) and those below it. Pointers are RFC 6901 JSON Pointers into the fully
    /// disclosed claims. The holder's own copy is read, not verified; any KB-JWT is dropped.
    /// - Throws: ``JOSEError``: `.missingClaim` for a pointer naming nothing, `.claimMismatch` for a malformed one,
    ///   and the processing codes of ``verify(key:policy:)`` when the SD-JWT itself is inconsistent.
    public func presenting(_ pointers: [String], limits: JOSELimits = .default) throws -> SDJWT {
        let (payload, algorithm) = try unverifiedPayload(limits: limits)
        let decoded = try disclosures.map { try SDJWTDisclosure(encoded: $0, limits: limits) }
        var processing = try SDJWTProcessing(disclosures: decoded, algorithm: algorithm, maxDepth: 2 * limits.maxJSONDepth)
        let full = JSONValue.object(try processing.process(payload: payload))
        var chosen = Set<Int>()
        for pointer in pointers {
            let target = try SDJWTPointer.components(pointer)
            guard SDJWT.resolve(target, in: full) != nil else {
                throw JOSEError(.missingClaim, "the pointer \(pointer.jsonSafePrefix) names no claim")
            }
            for (index, placed) in processing.paths.enumerated() {
                guard let path = placed, path.starts(with: target) || target.starts(with: path) else { continue }
                chosen.insert(index)
            }
        }
        return SDJWT(issuerSignedJWT: issuerSignedJWT, disclosures: disclosures.indices.filter(chosen.contains).map { disclosures[$0] })
    }

    /// This presentation with a KB-JWT (RFC 9901 §4.3) signed by the holder's private key: `typ: kb+jwt`,
    /// `iat`, `aud`, `nonce` and the `sd_hash` of the presentation (with the SD-JWT's `_sd_alg`).
    /// - Throws: ``JOSEError`` for an unreadable payload, an unsupported `_sd_alg`, and the signing errors.
    public func addingKeyBinding(
        key: JWK, algorithm: JWSAlgorithm, audience: String, nonce: String, issuedAt: Date = Date(), limits: JOSELimits = .default
    ) throws -> SDJWT {
        let (_, hashAlgorithm) = try unverifiedPayload(limits: limits)
        let presentation = SDJWT(issuerSignedJWT: issuerSignedJWT, disclosures: disclosures)
        let claims: JSONObject = [
            "iat": .integer(Int64(issuedAt.timeIntervalSince1970.rounded(.down))), "aud": .string(audience), "nonce": .string(nonce),
            "sd_hash": .string(hashAlgorithm.digest(of: presentation.withoutKeyBinding)),
        ]
        let kb = try JWT.sign(claims, key: key, algorithm: algorithm, header: ["typ": "kb+jwt"])
        return SDJWT(issuerSignedJWT: issuerSignedJWT, disclosures: disclosures, keyBindingJWT: kb)
    }

    /// The issuer-signed JWT's payload and hash function, read without verifying (the holder's own credential).
    func unverifiedPayload(limits: JOSELimits) throws -> (JSONObject, SDJWTHashAlgorithm) {
        let jws = try CompactJWS(issuerSignedJWT, limits: limits)
        let payload = try JSONParser.parseObject(jws.payload, limits: limits.tokenJSON, what: "the SD-JWT payload")
        return (payload, try SDJWTHashAlgorithm(sdAlg: payload["_sd_alg"]))
    }

    /// The value a pointer names, if any.
    static func resolve(_ path: [String], in value: JSONValue) -> JSONValue? {
        var current = value
        for component in path {
            switch current {
            case .object(let object):
                guard let next = object[component] else { return nil }
                current = next
            case .array(let array):
                guard let position = Int(component), array.indices.contains(position) else { return nil }
                current = array[position]
            default: return nil
            }
        }
        return current
    }
}
