// JWTClaims(payload:): the validating index pass, every typed getter (which
// decode single claims), `object` (full materialization), names, subscripts,
// claim(_:as:), decode(_:) and validation; checks that the lazy getters agree
// with the materialized object.
import FuzzSupport
@_spi(Testing) import JOSE

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

struct StandardClaims: Decodable {
    var iss: String?
    var sub: String?
    var aud: [String]?
    var exp: Double?
    var nonce: String?
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard let claims = try? JWTClaims(payload: Fuzz.bytes(data, size)) else {
        if (try? JOSEFuzzing.parseJSONObject(Fuzz.bytes(data, size))) != nil {
            fatalError("JWTClaims refused an object the JSON parser accepts")
        }
        return 0
    }
    blackHole(try? claims.issuer)
    blackHole(try? claims.subject)
    blackHole(try? claims.jwtID)
    blackHole(try? claims.audience)
    blackHole(try? claims.expiresAt)
    blackHole(try? claims.notBefore)
    blackHole(try? claims.issuedAt)
    let names = claims.names
    let object = claims.object
    if names.count != object.count { fatalError("JWTClaims: names and object disagree on the member count") }
    for name in names.prefix(16) {
        guard let value = claims[name], value == object[name] else { fatalError("JWTClaims: subscript disagrees with object for \(name)") }
        blackHole(try? claims.string(name))
        blackHole(try? claims.date(name))
        blackHole(try? claims.claim(name, as: Int.self))
        blackHole(try? claims.claim(name, as: [String].self))
        blackHole(try? claims.claim(name, as: Bool.self))
        blackHole(try? claims.claim(name, as: Double.self))
    }
    blackHole(try? claims.decode(StandardClaims.self))
    blackHole((try? claims.validate(JWTValidationPolicy(clock: { Date(timeIntervalSince1970: 1_800_000_000) }, issuer: "https://issuer.example"))) != nil)
    return 0
}

@main
enum FuzzMain {
    static func main() { Fuzz.main { fuzz($0 ?? Fuzz.emptyInput, $1) } }
}
