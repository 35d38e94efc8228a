import Foundation
import JOSE
import Testing

@testable import OIDC

/// Inputs found by the libFuzzer targets in Tests/Fuzz that crashed the process.
@Suite("Fuzz regressions (OIDC)")
struct OIDCFuzzRegressionTests {
    /// fuzz-oidc-token-response, Corpus/fuzz-oidc-token-response/<sha1 of the bytes below>
    /// (2 selector bytes, then the body): `expires_in` near Int64.max made `expiresAt` lie
    /// beyond Int64 seconds; `description` and the stored form (`jsonObject`, `encode`)
    /// converted it with `Int64(_:)` and trapped — a token endpoint could crash the client.
    @Test("a huge expires_in does not trap in description or the stored form (fuzz-oidc-token-response)")
    func hugeExpiresIn() async throws {
        let body = #"{"access_token":"x","token_type":"Bearer","expires_in":9223372036854775807}"#
        let transport = CannedTransport(status: 200, body: body)
        let client = try TokenClient(
            tokenEndpoint: URL(string: "https://idp.example/token")!, authentication: .none(clientID: "c"),
            transport: transport, clock: { Date(timeIntervalSince1970: 1_800_000_000) })
        let tokens = try await client.exchangeCode("code", redirectURI: URL(string: "https://client.example/cb")!, codeVerifier: nil)
        #expect(tokens.expiresIn == Int.max)
        #expect(String(describing: tokens).contains("expires_at: 9223372036854775807"))
        #expect(tokens.jsonObject["expires_at"] == .integer(.max))
        let stored = try JSONEncoder().encode(tokens)
        let restored = try JSONDecoder().decode(TokenResponse.self, from: stored)
        #expect(restored.jsonObject["expires_at"] == .integer(.max))
    }

    @Test("a stored expires_at outside Int64 is clamped", arguments: ["1e300", "-1e300"])
    func storedExpiresAtOutOfRange(_ number: String) throws {
        let object = try JSONParser.parseObject(Array(#"{"access_token":"x","token_type":"Bearer","expires_at":\#(number)}"#.utf8), what: "test")
        let tokens = try TokenResponse(storedJSON: object)
        #expect(tokens.jsonObject["expires_at"] == .integer(number.hasPrefix("-") ? .min : .max))
        _ = String(describing: tokens)
    }
}
