import Foundation
import JOSE
import Testing

@testable import OIDC

/// ``RemoteFetchPolicy``: the default rules, name resolution, and widening by name (allow-list, hook).
@Suite("RemoteFetchPolicy: which user- or remote-chosen hosts the library may call")
struct RemoteFetchPolicyTests {
    static let issuerAnswer = #"{"links":[{"rel":"http://openid.net/specs/connect/1.0/issuer","href":"https://op.example"}]}"#

    /// A policy whose names resolve from `table` (a name not in it does not resolve).
    static func policy(
        _ table: [String: [String]], allowedHosts: Set<RemoteFetchPolicy.HostPort> = [],
        admit: (@Sendable (RemoteFetchPolicy.Refusal) -> Bool)? = nil
    ) -> RemoteFetchPolicy {
        var policy = RemoteFetchPolicy(allowedHosts: allowedHosts, admit: admit)
        policy.resolve = { name in table[name]?.compactMap { HostAddress(literal: $0) } }
        return policy
    }

    static func url(_ text: String) throws -> URL { try #require(URL(string: text)) }

    @Test(
        "addresses are classified: internal forms named, public ones not",
        arguments: [
            ("10.0.0.5", true), ("172.31.255.255", true), ("172.32.0.1", false), ("192.168.0.1", true), ("100.64.0.1", true),
            ("100.128.0.1", false), ("127.0.0.1", true), ("169.254.169.254", true), ("0.0.0.0", true), ("224.0.0.1", true),
            ("255.255.255.255", true), ("8.8.8.8", false), ("93.184.216.34", false),
            ("::1", true), ("::", true), ("fd00::1", true), ("fe80::1", true), ("ff02::1", true), ("::ffff:10.0.0.5", true),
            ("::ffff:8.8.8.8", false), ("64:ff9b::a00:5", true), ("2002:7f00:1::", true), ("2606:4700::1111", false),
        ])
    func classification(_ text: String, _ isInternal: Bool) throws {
        let address = try #require(HostAddress(literal: text))
        #expect((address.internalKind != nil) == isInternal, "\(text): \(address.internalKind ?? "public")")
    }

    @Test("IPv4 literals are read in every encoding the resolver accepts; names are not literals")
    func literalEncodings() throws {
        for text in ["2130706433", "0x7f000001", "0x7f.0.0.1", "0177.0.0.1", "127.1", "127.0.1"] {
            #expect(HostAddress(literal: text)?.description == "127.0.0.1", "\(text)")
        }
        for name in ["example.com", "cafe", "dead.beef", "1.2.3.4.example", "127.0.0.1 x", ""] {
            #expect(HostAddress(literal: name) == nil, "\(name)")
        }
        #expect(HostAddress(literal: "[::ffff:7f00:1]")?.internalKind == "IPv4-mapped: a loopback address")
    }

    @Test("the system resolver says localhost is loopback")
    func systemResolver() async throws {
        let addresses = try #require(await HostAddress.resolve("localhost"))
        #expect(addresses.allSatisfy { $0.internalKind != nil })
        #expect(await HostAddress.resolve("no-such-host.invalid") == nil)
    }

    @Test("a name is resolved: admitted only when every address is public; internal and unresolvable read alike")
    func nameResolution() async throws {
        let policy = Self.policy([
            "op.example": ["93.184.216.34", "2606:2800:220:1::1"], "rebind.example": ["93.184.216.34", "10.0.0.5"],
            "db.corp.example": ["10.0.0.5"], "v6.example": ["fd00::7"], "mapped.example": ["::ffff:127.0.0.1"],
            "k8s.example": ["100.64.3.2"],
        ])
        #expect(try await policy.refusal(for: Self.url("https://op.example/x")) == nil)
        #expect(try await policy.refusal(for: Self.url("https://op.example:443/x")) == nil)
        #expect(try await policy.refusal(for: Self.url("https://93.184.216.34/x")) == nil)
        for name in ["rebind.example", "db.corp.example", "v6.example", "mapped.example", "k8s.example"] {
            let refusal = try #require(try await policy.refusal(for: Self.url("https://\(name)/x")), "\(name)")
            guard case .resolvesToInternalAddress = refusal.reason else { Issue.record("\(name): \(refusal)"); continue }
            #expect(refusal.publicReason == "\(name):443 has no public address")
        }
        let missing = try #require(try await policy.refusal(for: Self.url("https://missing.example/x")))
        #expect(missing.reason == .unresolvable)
        #expect(missing.publicReason == "missing.example:443 has no public address")
        // the diagnosis (for the observer) names the address
        #expect(try #require(try await policy.refusal(for: Self.url("https://rebind.example/"))).description.contains("10.0.0.5"))
        #expect(try await policy.refusal(for: Self.url("https://op.example:8443/x"))?.reason == .port)
        #expect(try await policy.refusal(for: Self.url("http://op.example/x"))?.reason == .port)
    }

    @Test("HOST:PORT entries parse, IPv6 in brackets; bad ones are typed")
    func hostPortParsing() throws {
        #expect(try RemoteFetchPolicy.HostPort("127.0.0.1:8443") == RemoteFetchPolicy.HostPort(host: "127.0.0.1", port: 8443))
        #expect(try RemoteFetchPolicy.HostPort("[::1]:8500").host == "::1")
        #expect(try RemoteFetchPolicy.HostPort("[::1]:8500").description == "[::1]:8500")
        #expect(try RemoteFetchPolicy.HostPort("IdP.Internal.:443").host == "idp.internal")
        for bad in ["127.0.0.1", "127.0.0.1:", "127.0.0.1:0", "127.0.0.1:65536", ":443", "::1:443", "a/b:443", "u@h:443", "h:x"] {
            do {
                _ = try RemoteFetchPolicy.HostPort(bad)
                Issue.record("\(bad) was accepted")
            } catch let error as OIDCError {
                #expect(error.code == .invalidFetchPolicyHost)
            }
        }
    }

    @Test("the allow-list admits exactly the named host on the named port")
    func allowList() async throws {
        let policy = Self.policy([:], allowedHosts: [try .init("127.0.0.1:8443"), try .init("[::1]:8500"), try .init("idp.internal:443")])
        #expect(try await policy.refusal(for: Self.url("https://127.0.0.1:8443/.well-known/webfinger")) == nil)
        #expect(try await policy.refusal(for: Self.url("https://[::1]:8500/x")) == nil)
        #expect(try await policy.refusal(for: Self.url("https://IDP.internal/x")) == nil)
        #expect(try await policy.refusal(for: Self.url("https://127.0.0.1:8444/x"))?.reason == .port)
        #expect(try await policy.refusal(for: Self.url("https://127.0.0.1/x"))?.reason == .internalAddress("a loopback address"))
        #expect(try await policy.refusal(for: Self.url("https://localhost:8443/x"))?.reason == .port)
        #expect(try await policy.refusal(for: Self.url("https://2130706433:8443/x"))?.reason == .port)

        // through WebFinger: the allowed test provider is asked, the same host on another port is not
        let transport = ScriptedTransport()
        let query = try WebFinger.Query(identifier: "alice@127.0.0.1:8443")
        transport.json(
            query.url.absoluteString,
            #"{"links":[{"rel":"http://openid.net/specs/connect/1.0/issuer","href":"https://127.0.0.1:8443/op"}]}"#)
        #expect(try await WebFinger.issuer(for: "alice@127.0.0.1:8443", transport: transport, fetchPolicy: policy) == "https://127.0.0.1:8443/op")
        await expectOIDCError(.webFingerHostRefused) {
            try await WebFinger.issuer(for: "alice@127.0.0.1:8444", transport: transport, fetchPolicy: policy)
        }
        // an allowed WebFinger host cannot name an issuer elsewhere on the internal network
        transport.json(
            query.url.absoluteString,
            #"{"links":[{"rel":"http://openid.net/specs/connect/1.0/issuer","href":"https://127.0.0.1:6443/op"}]}"#)
        await expectOIDCError(.webFingerHostRefused) {
            try await WebFinger.issuer(for: "alice@127.0.0.1:8443", transport: transport, fetchPolicy: policy)
        }
        #expect(transport.totalCalls == 2)
    }

    @Test("the hook is asked about each refusal and can admit it; it is not asked about admitted hosts")
    func hook() async throws {
        let asked = Locked<[RemoteFetchPolicy.Refusal]>([])
        let policy = Self.policy(["public.example": ["8.8.8.8"], "db.corp.example": ["10.0.0.5"]]) { refusal in
            asked.withLock { $0.append(refusal) }
            return refusal.host.hasSuffix(".corp.example") || refusal.reason == .port && refusal.host == "public.example"
        }
        #expect(try await policy.refusal(for: Self.url("https://public.example/x")) == nil)
        #expect(asked.withLock { $0.isEmpty })
        #expect(try await policy.refusal(for: Self.url("https://db.corp.example/x")) == nil)
        #expect(try await policy.refusal(for: Self.url("https://public.example:8443/x")) == nil)
        #expect(try await policy.refusal(for: Self.url("https://10.0.0.5/x"))?.reason == .internalAddress("a private address (RFC 1918)"))
        let reasons = asked.withLock { $0 }
        #expect(reasons.count == 3)
        #expect(reasons.first?.reason == .resolvesToInternalAddress("10.0.0.5 (a private address (RFC 1918))"))
    }

    @Test("a refused WebFinger host or issuer: the observer's event carries the diagnosis, the error a reason without it")
    func observerGetsTheDiagnosis() async throws {
        let observer = RecordingObserver()
        let transport = ScriptedTransport()
        let policy = Self.policy(["wf.example": ["93.184.216.34"], "kube.example": ["10.96.0.1"]])
        let error = await #expect(throws: OIDCError.self) {
            _ = try await WebFinger.issuer(for: "alice@kube.example", transport: transport, observer: observer, fetchPolicy: policy)
        }
        #expect(error?.code == .webFingerHostRefused)
        #expect(error?.reason.contains("10.96.0.1") == false)
        let event = try #require(observer.events(.discovery).last)
        #expect(event.outcome == .failure(code: "webfinger_host_refused"))
        #expect(event.detail?.contains("10.96.0.1") == true)
        #expect(transport.totalCalls == 0)

        // an unusable answer: quoted (redacted) for the observer only
        let query = try WebFinger.Query(identifier: "alice@wf.example")
        transport.json(query.url.absoluteString, "<html>grafana login</html>", headers: ["Content-Type": "text/html"])
        let invalid = await #expect(throws: OIDCError.self) {
            _ = try await WebFinger.issuer(for: "alice@wf.example", transport: transport, observer: observer, fetchPolicy: policy)
        }
        #expect(invalid?.reason.contains("grafana") == false)
        #expect(observer.events(.discovery).last?.detail?.contains("grafana") == true)
    }

    @Test("a provider found through WebFinger: its endpoints must be on admitted hosts too")
    func discoveredEndpointsAreChecked() async throws {
        let transport = ScriptedTransport()
        let policy = Self.policy(["op.example": ["93.184.216.34"]])
        let query = try WebFinger.Query(identifier: "alice@op.example")
        transport.json(query.url.absoluteString, Self.issuerAnswer)
        func document(token: String) -> String {
            #"{"issuer":"https://op.example","authorization_endpoint":"https://op.example/a","token_endpoint":"\#(token)","#
                + #""jwks_uri":"https://op.example/k","response_types_supported":["code"],"subject_types_supported":["public"],"#
                + #""id_token_signing_alg_values_supported":["RS256"]}"#
        }
        transport.json("https://op.example/.well-known/openid-configuration", document(token: "https://op.example/t"))
        let client = try await OIDCClient.discover(
            webFinger: "alice@op.example", authentication: .none(clientID: "c"), transport: transport,
            fetchPolicy: policy)
        #expect(client.issuer == "https://op.example")
        transport.json("https://op.example/.well-known/openid-configuration", document(token: "https://169.254.169.254/latest/t"))
        let error = await #expect(throws: OIDCError.self) {
            _ = try await OIDCClient.discover(
                webFinger: "alice@op.example", authentication: .none(clientID: "c"), transport: transport,
                fetchPolicy: policy)
        }
        #expect(error?.code == .webFingerHostRefused)
        #expect(error?.endpoint == .token)
    }

    @Test("protected resource metadata: internal hosts refused before any request, widened by name")
    func resourceMetadata() async throws {
        let transport = ScriptedTransport()
        let document = #"{"resource":"https://127.0.0.1:8443/api","authorization_servers":["https://10.0.0.7:8443/as"]}"#
        transport.json("https://127.0.0.1:8443/.well-known/oauth-protected-resource/api", document)
        var challenge = HeaderFields()
        challenge.add("WWW-Authenticate", #"Bearer resource_metadata="https://127.0.0.1:8443/.well-known/oauth-protected-resource/api""#)
        let refusal = TransportResponse(status: 401, headers: challenge, body: [])
        await expectOIDCError(.resourceMetadataHostRefused) {
            try await ProtectedResourceDiscovery.fetch(challengedBy: refusal, resource: "https://127.0.0.1:8443/api", transport: transport)
        }
        await expectOIDCError(.resourceMetadataHostRefused) {
            try await ProtectedResourceDiscovery.fetch(resource: "https://[::1]/api", transport: transport)
        }
        #expect(transport.totalCalls == 0)
        let policy = Self.policy([:], allowedHosts: [try .init("127.0.0.1:8443")])
        let metadata = try await ProtectedResourceDiscovery.fetch(
            challengedBy: refusal, resource: "https://127.0.0.1:8443/api",
            transport: transport, fetchPolicy: policy)
        // the authorization server the resource names is its choice: checked when picked from any listed
        #expect(throws: OIDCError.self) { try metadata.authorizationServer(.anyListed) }
        await expectOIDCError(.resourceMetadataHostRefused) { try await metadata.authorizationServer(.anyListed, fetchPolicy: policy) }
        #expect(try metadata.authorizationServer(.trusted(["https://10.0.0.7:8443/as"])) == "https://10.0.0.7:8443/as")
        let wider = Self.policy([:], allowedHosts: [try .init("127.0.0.1:8443"), try .init("10.0.0.7:8443")])
        #expect(try await metadata.authorizationServer(.anyListed, fetchPolicy: wider) == "https://10.0.0.7:8443/as")
        // a non-JSON answer is not quoted
        transport.json(
            "https://127.0.0.1:8443/.well-known/oauth-protected-resource/api", "<html>consul ui</html>",
            headers: ["Content-Type": "text/html"])
        let invalid = await #expect(throws: OIDCError.self) {
            _ = try await ProtectedResourceDiscovery.fetch(resource: "https://127.0.0.1:8443/api", transport: transport, fetchPolicy: policy)
        }
        #expect(invalid?.description.contains("consul") == false)
    }
}
