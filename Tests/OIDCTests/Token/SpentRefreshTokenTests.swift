import Foundation
import JOSE
import Testing

@testable import OIDC

/// `SpentRefreshToken`: a refresh answer that a check of ours refuses after the provider rotated the
/// refresh token is `refresh_token_spent` in every client that refreshes (the grant is gone: replaying
/// the spent token would trip the provider's reuse detection); without rotation, the check's own error.
@Suite("Refused refresh answers with a rotated refresh token")
struct SpentRefreshTokenTests {
    static let issuer = "https://as.example"
    static let tokenEndpoint = URL(string: "https://as.example/token")!

    /// A Bearer answer to a client that sent a DPoP proof (refused: `dpop_token_type_mismatch`), with `refreshToken`.
    static func bearerAnswer(refreshToken: String?) -> CannedTransport {
        var object: JSONObject = ["access_token": "AT-2", "token_type": "Bearer"]
        if let refreshToken { object["refresh_token"] = .string(refreshToken) }
        return CannedTransport(status: 200, body: object.jsonString())
    }

    static let refreshGrant: [(name: String, value: String)] = [("grant_type", "refresh_token"), ("refresh_token", "RT-1")]

    /// What each client that refreshes throws for the refresh `RT-1` answered by `transport`.
    static func errors(_ transport: CannedTransport) async throws -> [String: OIDCError?] {
        let dpop = DPoPBinding(key: try DPoPKey.generate())
        let tokenClient = try TokenClient(
            tokenEndpoint: tokenEndpoint, issuer: issuer,
            authentication: .clientSecretBasic(clientID: "app", secret: "s"), transport: transport, dpop: dpop)
        func caught(_ body: () async throws -> TokenResponse) async -> OIDCError? {
            do { _ = try await body(); return nil } catch { return error as? OIDCError }
        }
        return [
            "requestTokens (the decoupled grants' strict rule)": await caught { try await tokenClient.requestTokens(refreshGrant, rule: .strict) },
            "refresh": await caught { try await tokenClient.refresh("RT-1") },
        ]
    }

    @Test("DPoP clients: a Bearer answer with a rotated refresh token is refresh_token_spent naming the check; no token in the text")
    func rotated() async throws {
        for (client, error) in try await Self.errors(Self.bearerAnswer(refreshToken: "RT-2")) {
            #expect(error?.code == .refreshTokenSpent, "\(client): \(String(describing: error))")
            #expect(error?.reason.contains("dpop_token_type_mismatch") == true, "\(client)")
            #expect(
                error.map { !$0.reason.contains("RT-2") && !$0.reason.contains("RT-1") && !$0.reason.contains("AT-2") } == true,
                "\(client): no token in the error")
        }
    }

    @Test("DPoP clients: the same or no refresh token in a refused answer keeps the check's own code", arguments: ["RT-1", nil] as [String?])
    func notRotated(_ refreshToken: String?) async throws {
        for (client, error) in try await Self.errors(Self.bearerAnswer(refreshToken: refreshToken)) {
            #expect(error?.code == .dpopTokenTypeMismatch, "\(client): \(String(describing: error))")
        }
    }

    @Test("a grant other than refresh_token whose refused answer carries a refresh token keeps the check's own code")
    func otherGrant() async throws {
        let client = try TokenClient(
            tokenEndpoint: Self.tokenEndpoint, issuer: Self.issuer,
            authentication: .clientSecretBasic(clientID: "app", secret: "s"),
            transport: Self.bearerAnswer(refreshToken: "RT-2"), dpop: DPoPBinding(key: try DPoPKey.generate()))
        let error = await #expect(throws: OIDCError.self) {
            try await client.requestTokens([("grant_type", "client_credentials")], rule: .strict)
        }
        #expect(error?.code == .dpopTokenTypeMismatch)
    }

    @Test("an answer whose form is refused (no token_type) after rotation is spent too")
    func malformedRotated() async throws {
        let transport = CannedTransport(status: 200, body: #"{"access_token":"AT-2","refresh_token":"RT-2"}"#)
        for (client, error) in try await Self.errors(transport) {
            #expect(error?.code == .refreshTokenSpent, "\(client): \(String(describing: error))")
            #expect(error?.reason.contains("invalid_token_response") == true, "\(client)")
        }
    }
}
