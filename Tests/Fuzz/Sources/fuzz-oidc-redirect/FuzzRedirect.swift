// Authorization-response parsing: PendingAuthorization.parseRedirect (query and
// fragment response modes) and parseFormPost. Input: byte 0 picks the request
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

let redirectURI = URL(string: "https://client.example/cb?tenant=a")!
let endpoint = URL(string: "https://issuer.example/authorize")!

let pendings: [PendingAuthorization] = {
    let state = try! OAuthState("af0ifjsldkj")
    let nonce = try! Nonce("n-0S6_WzA2Mj")
    let pkce = PKCE(verifier: try! CodeVerifier("dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"))
    var result: [PendingAuthorization] = []
    for type in ResponseType.allCases {
        for mode in [nil] + ResponseMode.allCases.map(Optional.some) {
            var request = OAuthRequest(clientID: "client", redirectURI: redirectURI, responseType: type, state: state,
                                       nonce: nonce, pkce: type.includesCode ? pkce : nil)
            request.responseMode = mode
            request.maxAge = 600
            for issuerSupported in [false, true] {
                if let pending = try? request.pendingAuthorization(at: endpoint, issuer: "https://issuer.example",
                                                                   issuerParameterSupported: issuerSupported) {
                    result.append(pending)
                }
            }
        }
    }
    precondition(!result.isEmpty, "fuzz-oidc-redirect: no pending authorization could be built")
    return result
}()

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard size > 0 else { return 0 }
    let pending = pendings[Int(data[0]) % pendings.count]
    let rest = Fuzz.string(data + 1, size - 1)
    if pending.responseMode == .formPost {
        blackHole(try? pending.parseFormPost(rest))
    } else {
        let text = rest.hasPrefix("http") ? rest : "https://client.example/cb" + rest
        if let url = URL(string: text) {
            blackHole(try? pending.parseRedirect(url))
        }
    }
    blackHole(try? OIDCFuzzing.parseForm(rest))
    blackHole(try? OIDCFuzzing.percentDecode(rest))
    return 0
}

@main
enum FuzzMain {
    static func main() { Fuzz.main { fuzz($0 ?? Fuzz.emptyInput, $1) } }
}
