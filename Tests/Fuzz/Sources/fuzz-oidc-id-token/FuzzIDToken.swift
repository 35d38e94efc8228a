// ID Token parsing (IDToken(_:): compact JWS split, header, claims with the
// OIDC typed fields), then signature verification against the fixed keys.
import FuzzSupport
import JOSE
import OIDC

@_cdecl("LLVMFuzzerInitialize")
public func initialize(_ argc: UnsafeMutablePointer<CInt>, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>) -> CInt {
    Fuzz.warmUp()
    return 0
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let text = Fuzz.string(data, size)
    guard let token = try? IDToken(text) else { return 0 }
    blackHole(String(describing: token))
    blackHole(token.algorithm)
    blackHole(token.claims.object)
    if let jws = try? CompactJWS(token.compact) {
        blackHole(try? jws.verify(with: Fuzz.keySet))
    }
    return 0
}

@main
enum FuzzMain {
    static func main() { Fuzz.main { fuzz($0 ?? Fuzz.emptyInput, $1) } }
}
