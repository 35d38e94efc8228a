import Foundation
import JOSE
import OIDC
import Testing

@testable import OIDCResourceServer

/// Keeps every event it is given (the resource-server tests' own recorder).
final class ValidationRecorder: OIDCObserver, Sendable {
    private let recorded = Locked<[OIDCEvent]>([])
    func record(_ event: OIDCEvent) { recorded.withLock { $0.append(event) } }
    var events: [OIDCEvent] { recorded.withLock { $0 } }
}

@Suite("Observability: access token, logout token and DPoP proof accepted / refused")
struct ResourceServerObservabilityTests {
    /// The code of the OIDCError `body` throws.
    func refusal(_ body: () async throws -> Void) async -> String? {
        do {
            try await body()
            return nil
        } catch {
            return (error as? OIDCError)?.code.rawValue
        }
    }

    @Test("an access token accepted, then refused for its audience, expiry and type: each event names the error code")
    func accessToken() async throws {
        let observer = ValidationRecorder()
        let validator = try Fixtures.validator(observer: observer)
        let good = try Fixtures.sign(Fixtures.accessTokenClaims())
        _ = try await validator.validate(bearerToken: good)
        var codes: [String] = []
        for token in [
            try Fixtures.sign(Fixtures.accessTokenClaims(["aud": "https://other.example"])),
            try Fixtures.sign(Fixtures.accessTokenClaims(["exp": .integer(1_800_000_000 - 3600)])),
            try Fixtures.sign(Fixtures.accessTokenClaims(), typ: "JWT"),
        ] {
            codes.append(try #require(await refusal { _ = try await validator.validate(bearerToken: token) }))
        }
        #expect(codes == ["audience_mismatch", "expired", "unexpected_token_type"])
        #expect(observer.events.map(\.kind) == Array(repeating: OIDCEvent.Kind.accessTokenValidation, count: 4))
        #expect(observer.events.map(\.outcome) == [.success] + codes.map { .failure(code: $0) })
        #expect(observer.events.allSatisfy { $0.origin == "https://as.example" && $0.duration != nil })
        for event in observer.events {
            var dumped = ""
            dump(event, to: &dumped)
            #expect(!dumped.contains(good.prefix(20)) && !String(reflecting: event).contains("alice"))
        }
    }

    @Test("a DPoP proof and a logout token refused: one event each with the error code")
    func proofAndLogout() async throws {
        let observer = ValidationRecorder()
        let proofs = DPoPProofValidator(clock: Fixtures.clock, observer: observer)
        let proofCode = await refusal {
            _ = try await proofs.validate(
                "not-a-proof", for: .request(method: "GET", uri: URL(string: "https://api.example/r?q=1")!),
                nonce: .notRequired, presenting: .noAccessToken)
        }
        let logout = LogoutTokenValidator(
            issuer: Fixtures.issuer, clientID: Fixtures.clientID, keys: .keySet(try Fixtures.publicKeys()),
            clock: Fixtures.clock, observer: observer)
        let logoutCode = await refusal { _ = try await logout.validate(try Fixtures.sign(Fixtures.accessTokenClaims(), typ: "logout+jwt")) }
        #expect(observer.events.map(\.kind) == [.dpopProofValidation, .logoutTokenValidation])
        #expect(observer.events.map(\.outcome) == [.failure(code: try #require(proofCode)), .failure(code: try #require(logoutCode))])
        #expect(observer.events.map(\.origin) == ["https://api.example", "https://as.example"])
    }

    @Test("introspection: the endpoint call and the validation, each recorded; an inactive token is refused with its code")
    func introspection() async throws {
        let observer = ValidationRecorder()
        let introspector = try IntrospectionTests.introspector(IntrospectionTests.json(IntrospectionTests.active), observer: observer)
        _ = try await introspector.validate("INTROSPECTED-TOKEN-0042", requiredScopes: ["read"])
        #expect(observer.events.map(\.kind) == [.introspection, .accessTokenValidation])
        #expect(observer.events.allSatisfy { $0.outcome == .success && $0.origin == "https://as.example" })

        let inactive = try IntrospectionTests.introspector(IntrospectionTests.json(#"{"active":false}"#), observer: observer)
        await expectCode(.inactiveToken) { _ = try await inactive.validate("INTROSPECTED-TOKEN-0042") }
        #expect(observer.events.last?.outcome == .failure(code: "inactive_token"))
        for event in observer.events { #expect(!String(reflecting: event).contains("INTROSPECTED-TOKEN-0042")) }
    }
}
