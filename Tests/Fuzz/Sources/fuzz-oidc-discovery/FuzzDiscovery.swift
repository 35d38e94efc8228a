// Provider metadata decoding: ProviderMetadata(jsonBytes:) (strict parse,
// registered fields, extra members) and the re-encoding of a parsed document.
import FuzzSupport
import OIDC

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard let metadata = try? ProviderMetadata(jsonBytes: Fuzz.bytes(data, size)) else { return 0 }
    blackHole(String(describing: metadata))
    if let encoded = try? JSONEncoder().encode(metadata) {
        blackHole(try? ProviderMetadata(jsonBytes: Array(encoded)))
    }
    blackHole(try? SecureURLPolicy.check(metadata.issuer, what: "issuer"))
    return 0
}

@main
enum FuzzMain {
    static func main() { Fuzz.main { fuzz($0 ?? Fuzz.emptyInput, $1) } }
}
