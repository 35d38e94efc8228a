import Foundation
import JOSE
import Testing

@testable import OIDC

/// The one place a refresh response becomes the tokens to keep.
@Suite("RefreshedIDTokenPolicy")
struct RefreshedIDTokenPolicyTests {
    static let secret = "a-client-secret-of-at-least-32-bytes!!"
    static let key = JWK(symmetricKey: Array(secret.utf8))
    static var policy: RefreshedIDTokenPolicy {
        .validate(with: IDTokenValidator(configuration: IDTokenFixtures.config(algorithms: [.hs256], secret: secret)))
    }

    static func token(_ changes: [(String, JSONValue?)] = []) throws -> String {
        try IDTokenFixtures.sign(IDTokenFixtures.claims(changes), key: key, .hs256)
    }

    @Test("without an ID Token in the response, the previous refresh token and ID Token are carried over (every policy)")
    func carriesOver() async throws {
        let previous = TokenResponse(accessToken: "AT-1", refreshToken: "RT-1", idToken: try Self.token())
        for policy in [Self.policy, .refuseIDTokens, .discardIDTokens] {
            let kept = try await policy.tokens(afterRefresh: TokenResponse(accessToken: "AT-2"), of: previous)
            #expect(kept.accessToken == "AT-2" && kept.refreshToken == "RT-1" && kept.idToken == previous.idToken)
        }
    }

    @Test("a new ID Token is validated and compared; the new refresh token wins")
    func validates() async throws {
        let previous = TokenResponse(accessToken: "AT-1", refreshToken: "RT-1", idToken: try Self.token())
        let good = try Self.token([("iat", .integer(Int64(IDTokenFixtures.start.timeIntervalSince1970) + 10))])
        let kept = try await Self.policy.tokens(afterRefresh: TokenResponse(accessToken: "AT-2", refreshToken: "RT-2", idToken: good), of: previous)
        #expect(kept.idToken == good && kept.refreshToken == "RT-2")
        let other = try Self.token([("sub", "bob")])
        await #expect { try await Self.policy.tokens(afterRefresh: TokenResponse(accessToken: "AT-2", idToken: other), of: previous) } throws: {
            ($0 as? OIDCError)?.code == .refreshSubjectChanged
        }
        await #expect {
            try await Self.policy.tokens(afterRefresh: TokenResponse(accessToken: "AT-2", idToken: IDTokenFixtures.tamper(good)), of: previous)
        } throws: { $0 is OIDCError }
    }

    @Test("with no previous ID Token, a new one is still validated")
    func noPrevious() async throws {
        let previous = TokenResponse(accessToken: "AT-1", refreshToken: "RT-1")
        let expired = try Self.token([("exp", .integer(Int64(IDTokenFixtures.start.timeIntervalSince1970) - 3600))])
        await #expect { try await Self.policy.tokens(afterRefresh: TokenResponse(accessToken: "AT-2", idToken: expired), of: previous) } throws: {
            ($0 as? OIDCError)?.code == .expired
        }
    }

    @Test("refuseIDTokens refuses any ID Token; discardIDTokens keeps the previous one")
    func refuseAndDiscard() async throws {
        let previous = TokenResponse(accessToken: "AT-1", refreshToken: "RT-1", idToken: try Self.token())
        let response = TokenResponse(accessToken: "AT-2", idToken: try Self.token([("sub", "bob")]))
        await #expect { try await RefreshedIDTokenPolicy.refuseIDTokens.tokens(afterRefresh: response, of: previous) } throws: {
            ($0 as? OIDCError)?.code == .refreshIDTokenNotExpected
        }
        #expect(try await RefreshedIDTokenPolicy.discardIDTokens.tokens(afterRefresh: response, of: previous).idToken == previous.idToken)
    }
}
