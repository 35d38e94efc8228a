import Foundation
import JOSE
import OIDC
import Testing

@testable import OIDCResourceServer

/// RFC 8705 §3.2: an introspection answer's `cnf.x5t#S256`, checked against the request's client certificate.
@Suite("Introspection: certificate-bound tokens (cnf.x5t#S256)")
struct IntrospectionConfirmationTests {
    static let certificate: [UInt8] = Array("a DER certificate, as bytes".utf8)
    static var thumbprint: String { Base64URL.encode(DigestAlgorithm.sha256.hash(certificate)) }

    @Test("the answer's cnf is read: certificate thumbprint matched with its certificate only; a malformed cnf is claim_type_mismatch")
    func confirmation() async throws {
        let bound = #"{"active":true,"cnf":{"x5t#S256":"\#(Self.thumbprint)"}}"#
        let info = try #require(try await IntrospectionTests.introspector(IntrospectionTests.json(bound)).introspect("T").activeToken)
        let confirmation = try #require(try info.confirmation)
        #expect(confirmation.certificateThumbprint == Self.thumbprint && confirmation.jwkThumbprint == nil)
        #expect(ClientCertificate.der(Self.certificate).thumbprint == Self.thumbprint)
        try confirmation.requireCertificate(.der(Self.certificate))
        await expectCode(.certificateBoundToken) { try confirmation.requireCertificate(.notPresented) }
        await expectCode(.certificateBoundToken) { try confirmation.requireCertificate(.der(Array("another certificate".utf8))) }

        let unbound = try await IntrospectionTests.introspector(IntrospectionTests.json(#"{"active":true}"#)).validate("T")
        #expect(try unbound.confirmation == nil)
        let malformed = try #require(
            try await IntrospectionTests.introspector(IntrospectionTests.json(#"{"active":true,"cnf":"x"}"#))
                .introspect("T").activeToken)
        await expectCode(.claimTypeMismatch) { _ = try malformed.confirmation }
    }

    /// The Bearer-only call proves no key and no certificate, so an answer that binds the token refuses it
    /// (it was accepted: a stolen bound token replayed as plain Bearer passed). The JWT path's codes.
    @Test("validate(_:) refuses an answer with cnf.jkt (dpop_bound_token_as_bearer) or cnf.x5t#S256 (certificate_bound_token); a malformed cnf too")
    func bearerOnlyRefusesBoundAnswers() async throws {
        let jkt = #"{"active":true,"scope":"read","cnf":{"jkt":"0ZcOCORZNYy-DWpqq30jZyJGHTN0d2HglBV3uiguA4I"}}"#
        await expectCode(.dpopBoundTokenAsBearer) { _ = try await IntrospectionTests.introspector(IntrospectionTests.json(jkt)).validate("T") }
        let x5t = #"{"active":true,"scope":"read","cnf":{"x5t#S256":"\#(Self.thumbprint)"}}"#
        await expectCode(.certificateBoundToken) { _ = try await IntrospectionTests.introspector(IntrospectionTests.json(x5t)).validate("T") }
        let both = #"{"active":true,"cnf":{"jkt":"0ZcOCORZNYy-DWpqq30jZyJGHTN0d2HglBV3uiguA4I","x5t#S256":"\#(Self.thumbprint)"}}"#
        await expectCode(.certificateBoundToken) { _ = try await IntrospectionTests.introspector(IntrospectionTests.json(both)).validate("T") }
        await expectCode(.claimTypeMismatch) {
            _ = try await IntrospectionTests.introspector(IntrospectionTests.json(#"{"active":true,"cnf":"x"}"#)).validate("T")
        }
        // The binding is checked on every call, cached answers included.
        let cache = IntrospectionCache(maximumLifetime: 60, clock: Fixtures.clock)
        let transport = IntrospectionTests.json(jkt)
        let introspector = try IntrospectionTests.introspector(transport, cache: cache)
        _ = try await introspector.introspect("T", hint: "access_token")
        await expectCode(.dpopBoundTokenAsBearer) { _ = try await introspector.validate("T") }
        #expect(transport.requests.count == 1)
    }

    @Test("ClientCertificate(pem:) reads the first CERTIFICATE block; anything else is invalid_pem")
    func pem() throws {
        let body = Data(Self.certificate).base64EncodedString()
        let pem = "junk\n-----BEGIN CERTIFICATE-----\n\(body)\n-----END CERTIFICATE-----\n"
        #expect(try ClientCertificate(pem: pem) == .der(Self.certificate))
        #expect(throws: JOSEError.self) { _ = try ClientCertificate(pem: "-----BEGIN PUBLIC KEY-----\n\(body)\n-----END PUBLIC KEY-----\n") }
        #expect(throws: JOSEError.self) { _ = try ClientCertificate(pem: "-----BEGIN CERTIFICATE-----\n!!!\n-----END CERTIFICATE-----\n") }
        #expect(ClientCertificate.notPresented.thumbprint == nil)
    }
}
