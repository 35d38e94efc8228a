// CompactJWS parsing followed by verification against the fixed keys
// (the JWK Set with kid selection, and each single key), under the default
// and a permissive policy; also the detached-payload form and JWT.verify.
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
    if let jwt = try? JWT.verify(token, keys: Fuzz.keySet, validation: JWTValidationOptions(clock: { Date(timeIntervalSince1970: 1_800_000_000) })) {
        blackHole(jwt.claims.object)
    }
    return 0
}

@main
enum FuzzMain {
    static func main() { Fuzz.main { fuzz($0 ?? Fuzz.emptyInput, $1) } }
}
