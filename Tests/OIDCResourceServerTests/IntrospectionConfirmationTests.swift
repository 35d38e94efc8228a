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

    @Test("a bound answer passes with its certificate only; an unbound one with or without; a malformed cnf is claim_type_mismatch")
    func confirmation() async throws {
        let bound = #"{"active":true,"cnf":{"x5t#S256":"\#(Self.thumbprint)"}}"#
        let info = try await IntrospectionTests.introspector(IntrospectionTests.json(bound)).validate("T")
        let confirmation = try #require(try info.confirmation)
        #expect(confirmation.certificateThumbprint == Self.thumbprint && confirmation.jwkThumbprint == nil)
        #expect(ClientCertificate.der(Self.certificate).thumbprint == Self.thumbprint)
        try confirmation.requireCertificate(.der(Self.certificate))
        await expectCode(.certificateBoundToken) { try confirmation.requireCertificate(.notPresented) }
        await expectCode(.certificateBoundToken) { try confirmation.requireCertificate(.der(Array("another certificate".utf8))) }

        let unbound = try await IntrospectionTests.introspector(IntrospectionTests.json(#"{"active":true}"#)).validate("T")
        #expect(try unbound.confirmation == nil)
        let malformed = try await IntrospectionTests.introspector(IntrospectionTests.json(#"{"active":true,"cnf":"x"}"#)).validate("T")
        await expectCode(.claimTypeMismatch) { _ = try malformed.confirmation }
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
