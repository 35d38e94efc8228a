import Dispatch
// Token-endpoint response decoding through TokenClient with a canned transport:
// byte 0 picks the HTTP status, byte 1 the response headers (content type,
// WWW-Authenticate taken from the body's first line), the rest is the body.
// Exercises exchangeCode (TokenResponse decoding, error mapping) and userInfo;
// also TokenResponse(storedJSON:) and its Decodable form on the body.
import FuzzSupport
@_spi(Testing) import JOSE
import OIDC

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

struct CannedTransport: HTTPTransport {
    let response: TransportResponse
    func send(_ request: TransportRequest) async throws -> TransportResponse { response }
}

let statuses = [200, 200, 200, 201, 204, 301, 400, 401, 403, 404, 429, 500, 503, 200]
let contentTypes = ["application/json", "application/json; charset=utf-8", "text/html", "application/jwt", ""]

final class Box<T>: @unchecked Sendable { var value: T? }

func runSync<T: Sendable>(_ body: @escaping @Sendable () async -> T) -> T {
    let box = Box<T>()
    let done = DispatchSemaphore(value: 0)
    Task {
        box.value = await body(); done.signal()
    }
    done.wait()
    return box.value!
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard size >= 2 else { return 0 }
    let body = Fuzz.bytes(data + 2, size - 2)
    var headers = HeaderFields()
    let selector = Int(data[1])
    let contentType = contentTypes[selector % contentTypes.count]
    if !contentType.isEmpty { headers.add("Content-Type", contentType) }
    if selector & 0x80 != 0 {
        let line = String(decoding: body.prefix { $0 != 0x0A }, as: UTF8.self)
        headers.add("WWW-Authenticate", line)
    }
    let response = TransportResponse(status: statuses[Int(data[0]) % statuses.count], headers: headers, body: body)
    // No issuer is given, so the initializer has nothing to refuse.
    guard
        let client = try? TokenClient(
            tokenEndpoint: URL(string: "https://issuer.example/token")!,
            authentication: .clientSecretBasic(clientID: "client", secret: "secret"),
            transport: CannedTransport(response: response),
            clock: { Date(timeIntervalSince1970: 1_800_000_000) })
    else { return 0 }
    let outcome: String = runSync {
        var out = ""
        do {
            let tokens = try await client.exchangeCode("code", redirectURI: URL(string: "https://client.example/cb")!, codeVerifier: "v")
            out += String(describing: tokens)
        } catch { out += String(describing: error) }
        do {
            let info = try await client.userInfo(accessToken: "at", endpoint: URL(string: "https://issuer.example/userinfo")!)
            out += info.jsonString()
            try? TokenClient.checkUserInfoSubject(info, idTokenSubject: "alice")
        } catch { out += String(describing: error) }
        return out
    }
    blackHole(outcome)
    if let object = try? JOSEFuzzing.parseJSONObject(body) {
        blackHole(try? TokenResponse(storedJSON: object))
    }
    blackHole(try? JSONDecoder().decode(TokenResponse.self, from: Data(body)))
    return 0
}

@main
enum FuzzMain {
    static func main() { Fuzz.main { fuzz($0 ?? Fuzz.emptyInput, $1) } }
}
