import Foundation
import JOSE
import Testing

@testable import OIDC

/// Request forgery through WebFinger (issue 36): an identifier the user types must not make the application's
/// server call an internal host. With the default fetch policy every internal form is refused before the transport
/// is called, and an unusable answer is never quoted in the error's reason. (Written against the API that existed
/// before the policy, so it ran — and failed — on the code without it.)
@Suite("WebFinger: internal hosts refused before any request")
struct WebFingerHostRefusalTests {
    static let refused = "webfinger_host_refused"

    @Test(
        "refused before any request",
        arguments: [
            // IPv4: private (RFC 1918), loopback, link-local, shared (RFC 6598), unspecified, with and without a port
            "x@10.0.0.5:9200", "x@10.0.0.5", "x@172.16.3.4", "x@192.168.1.1", "x@127.0.0.1:6443", "acct:alice@127.0.0.1",
            "x@169.254.169.254", "x@100.64.0.1", "x@0.0.0.0", "https://10.1.2.3/alice",
            // IPv6: loopback, unique-local, link-local, IPv4-mapped, unspecified
            "x@[::1]:8500", "x@[::1]", "x@[fd12:3456::1]", "x@[fc00::5]", "x@[fe80::1]", "x@[::ffff:127.0.0.1]", "x@[::ffff:a00:5]",
            "x@[::ffff:169.254.169.254]", "x@[::]",
            // other encodings of 127.0.0.1 / 10.0.0.5 that resolvers (and so transports) accept
            "x@2130706433", "x@0x7f000001", "x@0x7f.0.0.1", "x@0177.0.0.1", "x@127.1", "x@167772165", "x@012.0.0.5",
            // names for local use, single labels, and names that do not resolve to a public address
            "x@localhost", "x@LOCALHOST.", "x@localhost:8443", "x@app.localhost", "x@printer.local", "x@nas.home.arpa",
            "x@metadata.internal", "x@kubernetes", "x@kubernetes.default.svc", "https://kubernetes.default.svc/alice",
            // a public address, but not the default https port
            "x@93.184.216.34:8443", "x@93.184.216.34:80", "https://93.184.216.34:9200/alice",
        ])
    func refusedBeforeAnyRequest(_ identifier: String) async throws {
        let transport = ScriptedTransport()
        let query = try WebFinger.Query(identifier: identifier)
        transport.json(query.url.absoluteString, #"{"links":[{"rel":"http://openid.net/specs/connect/1.0/issuer","href":"https://op.example"}]}"#)
        do {
            _ = try await WebFinger.issuer(for: identifier, transport: transport)
            Issue.record("\(identifier) was not refused")
        } catch let error as OIDCError {
            #expect(error.code.rawValue == Self.refused, "\(identifier): \(error)")
        }
        #expect(transport.totalCalls == 0, "\(identifier): a request was sent")
    }

    @Test("an internal issuer named by a public WebFinger server is never discovered")
    func internalIssuerIsNotFetched() async throws {
        let transport = ScriptedTransport()
        let query = try WebFinger.Query(identifier: "alice@93.184.216.34")
        for issuer in ["https://10.0.0.7:8443/admin", "https://10.0.0.7/admin", "https://[::1]/x", "https://localhost/x", "https://127.0.0.1:443/x"] {
            transport.json(query.url.absoluteString, #"{"links":[{"rel":"http://openid.net/specs/connect/1.0/issuer","href":"\#(issuer)"}]}"#)
            do {
                _ = try await OIDCClient.discover(webFinger: "alice@93.184.216.34", authentication: .none(clientID: "c"), transport: transport)
                Issue.record("\(issuer) was discovered")
            } catch let error as OIDCError {
                #expect(error.code.rawValue == Self.refused, "\(issuer): \(error)")
            }
            #expect(transport.totalCalls == transport.calls(query.url.absoluteString), "\(issuer): fetched beyond WebFinger")
        }
    }

    @Test("the answer of a WebFinger server is never quoted in the error's reason")
    func noBodyExcerptInReason() async throws {
        let transport = ScriptedTransport()
        let query = try WebFinger.Query(identifier: "alice@93.184.216.34")
        let page = "<html><body>internal-dashboard: elasticsearch cluster green, 42 nodes</body></html>"
        for status in [200, 404, 500] {
            transport.json(query.url.absoluteString, page, status: status, headers: ["Content-Type": "text/html"])
            do {
                _ = try await WebFinger.issuer(for: "alice@93.184.216.34", transport: transport)
                Issue.record("an HTML answer was accepted")
            } catch let error as OIDCError {
                #expect(error.code == .webFingerInvalidResponse)
                for word in ["internal-dashboard", "elasticsearch", "cluster", "html"] {
                    #expect(!error.reason.contains(word), "HTTP \(status): the reason quotes the answer: \(error.reason)")
                    #expect(!error.description.contains(word), "HTTP \(status): the description quotes the answer")
                }
            }
        }
        transport.json(query.url.absoluteString, #"{"links": "elasticsearch"}"#)
        let error = await #expect(throws: OIDCError.self) { _ = try await WebFinger.issuer(for: "alice@93.184.216.34", transport: transport) }
        #expect(error?.reason.contains("elasticsearch") == false)
    }
}
