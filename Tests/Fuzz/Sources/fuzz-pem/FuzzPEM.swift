// JWK(pem:) on arbitrary text (PUBLIC KEY, PRIVATE KEY, RSA/EC PRIVATE KEY,
// CERTIFICATE blocks reach OpenSSL's decoders), then thumbprint of the result.
import FuzzSupport
import JOSE

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    if let key = try? JWK(pem: Fuzz.string(data, size)) {
        blackHole(key.thumbprint())
        blackHole(String(describing: key))
    }
    return 0
}

@main
enum FuzzMain {
    static func main() { Fuzz.main { fuzz($0 ?? Fuzz.emptyInput, $1) } }
}
