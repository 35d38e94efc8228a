// Compiles only while no toolkit module declares a name the server ecosystem uses: this file
// imports Hummingbird, HTTPTypes, Logging, AsyncHTTPClient and every toolkit module, and spells
// the ecosystem's names unqualified. An ambiguity (`'HTTPRequest' is ambiguous for type lookup`)
// fails the app's test script (Samples/hummingbird-app/Tests/run.sh builds this target). Hummingbird's
// scoped re-exports hide a clash with HTTPRequest/HTTPResponse/HTTPFields here: WithoutHummingbird.swift
// checks those (seen failing with a probe `public struct HTTPRequest {}` added to OIDC).
import AsyncHTTPClient
import Foundation
import HTTPTypes
import Hummingbird
import JOSE
import Logging
import OIDC
import OIDCNetworking
import OIDCPostgres
import OIDCRedis
import OIDCResourceServer
import OIDCSession
import OIDCSharedSignals

/// swift-http-types' names.
public func ecosystemHTTPTypes() -> (HTTPRequest, HTTPResponse, HTTPFields, HTTPField.Name) {
    var fields = HTTPFields()
    fields[.contentType] = "application/json"
    let request = HTTPRequest(method: .get, scheme: "https", authority: "example.com", path: "/", headerFields: fields)
    return (request, HTTPResponse(status: .ok), fields, .authorization)
}

/// Hummingbird's names.
public func ecosystemHummingbird() -> some ApplicationProtocol {
    let router = Router()
    router.get("/") { (_: Request, _: BasicRequestContext) -> Response in
        Response(status: .ok, headers: HTTPFields(), body: ResponseBody(byteBuffer: ByteBuffer(string: "ok")))
    }
    return Application(router: router, configuration: ApplicationConfiguration(address: .hostname("127.0.0.1", port: 0)))
}

/// swift-log's and AsyncHTTPClient's names.
public func ecosystemLoggingAndClient() -> (Logger, HTTPClientRequest, HTTPClient.Configuration) {
    (Logger(label: "check"), HTTPClientRequest(url: "https://example.com"), HTTPClient.Configuration(redirectConfiguration: .disallow))
}

/// The toolkit's own transport and protocol names next to them.
public func toolkitNames() throws -> (TransportRequest, TransportResponse, HeaderFields, TransportBody, TransportRequest.Method) {
    let url = try SecureURLPolicy.check("https://example.com/api", what: "check")
    let request = TransportRequest(method: .post, url: url, headers: ["Accept": "application/json"], body: .bytes([]))
    return (request, TransportResponse(status: 200), HeaderFields(), .bytes([]), .get)
}

/// One symbol of each toolkit module, so each import is used.
public func toolkitModules() -> [String] {
    [
        String(describing: JWSAlgorithm.rs256), String(describing: OIDCClient.self), String(describing: URLSessionTransport.self),
        String(describing: AuthenticatedSession.self), String(describing: ResourceGuard.self),
        String(describing: PostgresPendingLoginStore.self), String(describing: InMemoryPendingLoginStore.self),
    ]
}
