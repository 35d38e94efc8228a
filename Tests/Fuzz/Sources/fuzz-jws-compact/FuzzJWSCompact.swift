// CompactJWS parsing followed by verification against the fixed keys
// (the JWK Set with kid selection, and each single key), under the default
// and a permissive policy; also the detached-payload form and JWT.verify.
// Differential: JWT.verify's one pass over the token must end exactly as the
// two-step path does (CompactJWS, verify, JWTClaims, validate): both succeed,
// or both fail with the same error code.
import FuzzSupport
import JOSE

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

@_cdecl("LLVMFuzzerInitialize")
public func initialize(_ argc: UnsafeMutablePointer<CInt>, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>) -> CInt {
    Fuzz.warmUp()
    return 0
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let buffer = UnsafeBufferPointer(start: data, count: size)
    let token = Fuzz.string(data, size)
    if let jws = try? CompactJWS(bytes: buffer) {
        blackHole(jws.payload)
        for policy in Fuzz.policies {
            blackHole(try? jws.verify(with: Fuzz.keySet, policy: policy))
            for key in Fuzz.singleKeys { blackHole((try? jws.verify(with: key, policy: policy)) != nil) }
        }
    }
    _ = try? CompactJWS(token)
    if let detached = try? CompactJWS(token, detachedPayload: Array("fuzz".utf8)) {
        blackHole(try? detached.verify(with: Fuzz.keySet, policy: Fuzz.policies[1]))
    }
    let validation = JWTValidationPolicy(clock: { Date(timeIntervalSince1970: 1_800_000_000) })
    if let jwt = try? JWT.verifyIgnoringIssuerAndAudience(token, keys: Fuzz.keySet, validation: validation) {
        blackHole(jwt.claims.object)
    }
    for policy in Fuzz.policies {
        compare(token, key: nil, policy: policy, validation: validation)
        for key in Fuzz.singleKeys { compare(token, key: key, policy: policy, validation: validation) }
    }
    return 0
}

/// "ok" or the error code, for each way of verifying.
func compare(_ token: String, key: JWK?, policy: JWSVerificationPolicy, validation: JWTValidationPolicy) {
    func outcome(_ body: () throws -> Void) -> String {
        do { try body(); return "ok" } catch let error as JOSEError { return error.code.rawValue } catch { return "\(type(of: error))" }
    }
    let onePass = outcome {
        if let key {
            _ = try JWT.verifyIgnoringIssuerAndAudience(token, key: key, policy: policy, validation: validation)
        } else {
            _ = try JWT.verifyIgnoringIssuerAndAudience(token, keys: Fuzz.keySet, policy: policy, validation: validation)
        }
    }
    let twoStep = outcome {
        let jws = try CompactJWS(token, limits: policy.limits)
        if let key { try jws.verify(with: key, policy: policy) } else { try jws.verify(with: Fuzz.keySet, policy: policy) }
        try JWTClaims(payload: jws.payload, limits: policy.limits).validate(validation)
    }
    if onePass != twoStep { fatalError("JWT.verify ended with \(onePass), CompactJWS + verify + claims with \(twoStep)") }
}

@main
enum FuzzMain {
    static func main() { Fuzz.main { fuzz($0 ?? Fuzz.emptyInput, $1) } }
}
