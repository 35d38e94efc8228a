// Authorization-response parsing: a pending login's redirect checks (query and
// fragment response modes) and its form post parsing. Input: byte 0 picks the request
// (response type / mode / issuer support); the rest is the redirect URL suffix
// appended to the registered redirect URI (or a whole URL when it starts with
// "http"), or the form_post body.
import FuzzSupport
@_spi(Testing) import OIDC

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

let pendings: [PendingLogin] = {
    precondition(!OIDCFuzzing.pendingLogins.isEmpty, "fuzz-oidc-redirect: no pending login could be built")
    return OIDCFuzzing.pendingLogins
}()

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard size > 0 else { return 0 }
    let pending = pendings[Int(data[0]) % pendings.count]
    let rest = Fuzz.string(data + 1, size - 1)
    // A form post body for a form_post login; otherwise a URL (the suffix after the registered redirect URI).
    let text = rest.hasPrefix("http") ? rest : "https://client.example/cb" + rest
    blackHole(try? OIDCFuzzing.parseAuthorizationResponse(text, for: pending))
    blackHole(try? OIDCFuzzing.parseAuthorizationResponse(rest, for: pending))
    blackHole(try? OIDCFuzzing.parseForm(rest))
    blackHole(try? OIDCFuzzing.percentDecode(rest))
    return 0
}

@main
enum FuzzMain {
    static func main() { Fuzz.main { fuzz($0 ?? Fuzz.emptyInput, $1) } }
}
