// JSONSerializedJWS (general and flattened) parsing followed by verification of
// every signature against each fixed key, under the default and a permissive policy.
import FuzzSupport
import JOSE

@_cdecl("LLVMFuzzerInitialize")
public func initialize(_ argc: UnsafeMutablePointer<CInt>, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>) -> CInt {
    Fuzz.warmUp()
    return 0
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let json = Fuzz.string(data, size)
    if let jws = try? JSONSerializedJWS(json: json) {
        blackHole(jws.payload)
        for policy in Fuzz.policies {
            for key in Fuzz.keySet.keys { blackHole(try? jws.verify(with: key, policy: policy)) }
            for index in jws.signatures.indices.prefix(4) {
                blackHole(jws.signatures[index].header)
                blackHole((try? jws.verify(signatureAt: index, with: Fuzz.hmacKey, policy: policy)) != nil)
            }
        }
        blackHole((try? jws.verify(signatureAt: jws.signatures.count, with: Fuzz.hmacKey)) != nil)
    }
    if let detached = try? JSONSerializedJWS(json: json, detachedPayload: Array("fuzz".utf8)) {
        blackHole(try? detached.verify(with: Fuzz.hmacKey, policy: Fuzz.policies[1]))
    }
    return 0
}

@main
enum FuzzMain {
    static func main() { Fuzz.main { fuzz($0 ?? Fuzz.emptyInput, $1) } }
}
