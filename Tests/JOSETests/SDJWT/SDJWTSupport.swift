import Foundation
import JOSE

/// Keys and hand-made tokens for the SD-JWT tests.
enum SDJWTFixture {
    static let issuer: JWK = (try? JWK.generate(.ec(.p256))) ?? JWK(symmetricKey: [])
    static let holder: JWK = (try? JWK.generate(.ec(.p256))) ?? JWK(symmetricKey: [])
    static let now = Date(timeIntervalSince1970: 1_700_000_000)

    /// A disclosure made by hand (any salt, any shape).
    static func disclosure(_ elements: [JSONValue]) -> String { Base64URL.encode(JSONValue.array(elements).jsonString()) }

    static func digest(_ disclosure: String, _ algorithm: SDJWTHashAlgorithm = .sha256) -> String { algorithm.digest(of: disclosure) }

    /// An issuer-signed JWT over `payload`, with the given disclosures and optional KB-JWT.
    static func token(_ payload: JSONObject, _ disclosures: [String], key: JWK = issuer) throws -> SDJWT {
        SDJWT(issuerSignedJWT: try JWT.sign(payload, key: key, algorithm: .es256, header: [:]), disclosures: disclosures)
    }

    static func policy(keyBinding: SDJWTKeyBinding? = nil) -> SDJWTVerificationPolicy {
        SDJWTVerificationPolicy(claims: JWTValidationPolicy(clock: { now }), keyBinding: keyBinding)
    }

    /// The code of the error `body` throws, or nil.
    static func code(_ body: () throws -> Void) -> JOSEError.Code? {
        do {
            try body()
            return nil
        } catch let error as JOSEError {
            return error.code
        } catch {
            return nil
        }
    }
}
