import Foundation
import JOSE
import Testing

@testable import OIDC

/// Issue 13: `Int(leeway)` trapped on NaN or huge leeways, and NaN switched the expiry check off.
@Suite("ID Token leeway (issue 13)")
struct LeewayRegressionTests {
    static let t0 = Int64(IDTokenFixtures.start.timeIntervalSince1970)

    func validate(leeway: Double, exp: Int64) async throws {
        let rsa = try IDTokenFixtures.privateKey("rsa2048", kid: "k1")
        let keySet = try JWKSet(json: IDTokenFixtures.jwks([IDTokenFixtures.publicJWK("rsa2048", kid: "k1")]))
        var config = IDTokenFixtures.config()
        config.leeway = leeway
        let token = try IDTokenFixtures.sign(
            IDTokenFixtures.claims([("exp", .integer(exp)), ("iat", .integer(Self.t0 - 3 * 86_400))]),
            key: rsa, .rs256)
        _ = try await IDTokenValidator(configuration: config, keys: .keySet(keySet)).validate(token, expecting: IDTokenExpectations(nonce: .noNonceSent))
    }

    @Test("NaN or negative leeway counts as 0 (a token expired 10 s ago is refused, no trap)", arguments: [Double.nan, -1])
    func nanLeeway(_ leeway: Double) async {
        await expectOIDCError(.expired) { try await validate(leeway: leeway, exp: Self.t0 - 10) }
    }

    @Test("a huge leeway counts as one day (a token expired two days ago is refused, no trap)", arguments: [1e300, 1e20])
    func hugeLeeway(_ leeway: Double) async {
        await expectOIDCError(.expired) { try await validate(leeway: leeway, exp: Self.t0 - 2 * 86_400) }
    }

    @Test("the configuration's description does not trap on a NaN leeway")
    func description() {
        var config = IDTokenFixtures.config()
        config.leeway = .nan
        #expect(String(describing: config).contains("leeway: nan"))
    }
}
