// JWK(json:) and JWKSet(json:) on the same input, then what callers do with
// a parsed key: thumbprint, algorithm/operation checks, key selection.
import FuzzSupport
import JOSE

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Fuzz.bytes(data, size)
    if let key = try? JWK(jsonBytes: bytes) {
        exercise(key)
    }
    _ = try? JWK(json: Fuzz.string(data, size))
    if let set = try? JWKSet(jsonBytes: bytes) {
        for key in set.keys { exercise(key) }
        for algorithm in JWSAlgorithm.allCases {
            blackHole(set.keys(for: algorithm).count)
            blackHole(try? set.selectKey(keyID: nil, algorithm: algorithm))
            blackHole(try? set.selectKey(keyID: set.keys.first?.keyID, algorithm: algorithm, allowMixedKeySet: true))
        }
    }
    return 0
}

func exercise(_ key: JWK) {
    blackHole(key.thumbprint())
    blackHole(key.keyID)
    for algorithm in JWSAlgorithm.allCases { blackHole(key.admits(algorithm)) }
    blackHole(key.permits(operation: "verify"))
    blackHole(String(describing: key))
}

@main
enum FuzzMain {
    static func main() { Fuzz.main { fuzz($0 ?? Fuzz.emptyInput, $1) } }
}
