import Foundation
import JOSE
import Testing

@testable import OIDC

/// The profiles' rules without a network: each relaxation exactly as narrow as documented.
@Suite("Provider profile rules")
struct ProviderProfileRuleTests {
    @Test("Entra: only the {tenantid} template of an alias issuer (or consumers' fixed tenant) is accepted at discovery")
    func entraDiscovery() {
        let entra = ProviderProfile.entra(.anyTenant)
        let base = "https://login.microsoftonline.com"
        #expect(entra.acceptsDiscoveredIssuer("\(base)/{tenantid}/v2.0", requested: "\(base)/common/v2.0"))
        #expect(entra.acceptsDiscoveredIssuer("\(base)/{tenantid}/v2.0", requested: "\(base)/organizations/v2.0"))
        #expect(entra.acceptsDiscoveredIssuer("\(base)/\(EntraTenants.consumerTenant)/v2.0", requested: "\(base)/consumers/v2.0"))
        #expect(!entra.acceptsDiscoveredIssuer("\(base)/\(EntraTenants.consumerTenant)/v2.0", requested: "\(base)/common/v2.0"))
        #expect(!entra.acceptsDiscoveredIssuer("https://evil.example/{tenantid}/v2.0", requested: "\(base)/common/v2.0"))
        #expect(!entra.acceptsDiscoveredIssuer("\(base)/{tenantid}/v2.0", requested: "\(base)/72f988bf-86f1-41af-91ab-2d7cd011db47/v2.0"))
        #expect(!entra.acceptsDiscoveredIssuer("\(base)/{tenantid}", requested: "\(base)/common"))
        #expect(!ProviderProfile.google(.anyHostedDomain).acceptsDiscoveredIssuer("\(base)/{tenantid}/v2.0", requested: "\(base)/common/v2.0"))
    }

    @Test("helpers: GUIDs, scheme removal, ISO 8601 dates (UTC only), profile names")
    func helpers() throws {
        #expect(ProviderProfile.isGUID("72f988bf-86f1-41af-91ab-2d7cd011db47"))
        #expect(!ProviderProfile.isGUID("72f988bf-86f1-41af-91ab-2d7cd011db4/"))
        #expect(!ProviderProfile.isGUID("../../evil/x"))
        #expect(ProviderProfile.withoutScheme("https://accounts.google.com") == "accounts.google.com")
        #expect(ProviderProfile.withoutScheme("accounts.google.com") == nil)
        #expect(ProviderClaimForms.parseISO8601("2024-05-01T10:20:30.123Z") == Date(timeIntervalSince1970: 1_714_558_830.123))
        #expect(ProviderClaimForms.parseISO8601("1970-01-01T00:00:00Z") == Date(timeIntervalSince1970: 0))
        #expect(ProviderClaimForms.parseISO8601("2000-02-29T12:00:00Z") == Date(timeIntervalSince1970: 951_825_600))
        for bad in ["2024-05-01 10:20:30Z", "2024-13-01T10:20:30Z", "2024-05-01T10:20:30+02:00", "2024-05-01T10:20:30.Z", "1714558830", ""] {
            #expect(ProviderClaimForms.parseISO8601(bad) == nil, "\(bad)")
        }
        let listed = try EntraTenants.allowList(["t"])
        #expect(ProviderProfile(name: "entra", tenants: listed, hostedDomains: .anyHostedDomain) == .entra(listed))
        #expect(ProviderProfile(name: "google", tenants: .anyTenant, hostedDomains: .anyHostedDomain) == .google(.anyHostedDomain))
        #expect(ProviderProfile(name: "azure", tenants: .anyTenant, hostedDomains: .anyHostedDomain) == nil)
    }

    @Test("an empty tenant or hosted-domain allow-list is refused when it is made (empty_allow_list); any is said by name")
    func emptyAllowListsRefused() throws {
        let tenants = #expect(throws: OIDCError.self) { _ = try EntraTenants.allowList([]) }
        #expect(tenants?.code == .emptyAllowList)
        let domains = #expect(throws: OIDCError.self) { _ = try GoogleHostedDomains.allowList(Set<String>()) }
        #expect(domains?.code == .emptyAllowList)
        #expect(EntraTenants.anyTenant.allowed == nil && GoogleHostedDomains.anyHostedDomain.allowed == nil)
        #expect(try EntraTenants.allowList(["t"]).allowed == ["t"])
        #expect(ProviderProfile.entra(.anyTenant).description == "entra(tenants: any)")
        let domains2 = try GoogleHostedDomains.allowList(["b.example", "a.example"])
        #expect(ProviderProfile.google(domains2).description == "google(hd: a.example,b.example)")
    }

    func token(_ claims: JSONObject) throws -> IDToken {
        let key = try JWK(
            json: String(
                contentsOf: URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
                    .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Keys/p256.jwk"), encoding: .utf8))
        return try IDToken(try JWT.sign(claims, key: key, algorithm: .es256))
    }

    @Test("Entra per token: tid required and a GUID, iss of that tenant, allow-list; Google: iss with or without scheme only, hd list")
    func issuerRules() throws {
        let base = "https://login.microsoftonline.com"
        let tid = "72f988bf-86f1-41af-91ab-2d7cd011db47"
        let good = try token(["iss": .string("\(base)/\(tid)/v2.0"), "tid": .string(tid)])
        try ProviderProfile.entra(.anyTenant).checkIssuer("\(base)/\(tid)/v2.0", of: good, configured: "\(base)/common/v2.0")
        func code(_ body: () throws -> Void) -> OIDCError.Code? {
            do { try body(); return nil } catch let error as OIDCError { return error.code } catch { return nil }
        }
        let noTid = try token(["iss": .string("\(base)/\(tid)/v2.0")])
        #expect(
            code { try ProviderProfile.entra(.anyTenant).checkIssuer("\(base)/\(tid)/v2.0", of: noTid, configured: "\(base)/common/v2.0") } == .tenantNotAllowed
        )
        #expect(
            code { try ProviderProfile.entra(.anyTenant).checkIssuer("\(base)/other/v2.0", of: good, configured: "\(base)/common/v2.0") } == .issuerMismatch)
        let otherTenant = try EntraTenants.allowList(["0b1a2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d"])
        #expect(
            code { try ProviderProfile.entra(otherTenant).checkIssuer("\(base)/\(tid)/v2.0", of: good, configured: "\(base)/common/v2.0") } == .tenantNotAllowed
        )
        let google = ProviderProfile.google(.anyHostedDomain)
        let plain = try token(["iss": "accounts.google.com"])
        try google.checkIssuer("accounts.google.com", of: plain, configured: "https://accounts.google.com")
        try google.checkIssuer("https://accounts.google.com", of: plain, configured: "https://accounts.google.com")
        #expect(code { try google.checkIssuer("http://accounts.google.com", of: plain, configured: "https://accounts.google.com") } == .issuerMismatch)
        #expect(code { try google.checkIssuer("accounts.google.com.evil", of: plain, configured: "https://accounts.google.com") } == .issuerMismatch)
        let hd = ProviderProfile.google(try .allowList(["example.com"]))
        #expect(code { try hd.checkIssuer("accounts.google.com", of: plain, configured: "https://accounts.google.com") } == .hostedDomainNotAllowed)
        #expect(
            code { try ProviderProfile.auth0.checkIssuer("https://tenant.auth0.com", of: plain, configured: "https://tenant.auth0.com/") } == .issuerMismatch)
    }

    @Test("claim forms: string booleans only under apple, ISO 8601 updated_at only under auth0, other strings refused")
    func claimForms() throws {
        let key = try JWK(
            json: String(
                contentsOf: URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
                    .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Keys/p256.jwk"), encoding: .utf8))
        func read(_ claims: JSONObject, _ profile: ProviderProfile?) throws -> IDToken {
            let compact = try JWT.sign(claims, key: key, algorithm: .es256)
            return try IDToken(jws: try CompactJWS(compact), compact: compact, providerProfile: profile)
        }
        #expect(try read(["email_verified": "true"], .apple).emailVerified == true)
        #expect(try read(["email_verified": "false"], .apple).emailVerified == false)
        #expect(throws: OIDCError.self) { _ = try read(["email_verified": "true"], nil) }
        #expect(throws: OIDCError.self) { _ = try read(["email_verified": "yes"], .apple) }
        #expect(throws: OIDCError.self) { _ = try read(["email_verified": "true"], .auth0) }
        #expect(try read(["updated_at": "2024-05-01T10:20:30Z"], .auth0).updatedAt == Date(timeIntervalSince1970: 1_714_558_830))
        #expect(try read(["updated_at": 1_714_558_830], .auth0).updatedAt == Date(timeIntervalSince1970: 1_714_558_830))
        #expect(throws: OIDCError.self) { _ = try read(["updated_at": "2024-05-01T10:20:30Z"], nil) }
        #expect(throws: OIDCError.self) { _ = try read(["updated_at": "yesterday"], .auth0) }
        #expect(try read(["is_private_email": "true"], nil).isPrivateEmail == true)
        #expect(try read(["is_private_email": false], nil).isPrivateEmail == false)
    }

    @Test("form_post callback: parsed with the query form's checks; refused for a login that asked for the query; user field typed")
    func formPost() throws {
        var request = try OAuthRequest(clientID: "app", redirectURI: URL(string: "https://app.example/cb")!)
        request.responseMode = .formPost
        let pending = try request.pendingAuthorization(
            at: URL(string: "https://idp.example/authorize")!, issuer: "https://idp.example",
            issuerParameterSupported: false)
        let user = #"{"name":{"firstName":"Ann","lastName":"Lee"},"email":"a@b.example"}"#
        let body = "code=c1&state=\(request.state.value)&user=" + FormURLEncoding.encode(user)
        let response = try pending.parse(.formPost(body))
        #expect(response.code == "c1")
        #expect(response.additionalParameters["user"] == user)
        let wrongState = "code=c1&state=other"
        #expect(throws: OIDCError.self) { _ = try pending.parse(.formPost(wrongState)) }
        let queryRequest = try OAuthRequest(clientID: "app", redirectURI: URL(string: "https://app.example/cb")!)
        let queryPending = try queryRequest.pendingAuthorization(
            at: URL(string: "https://idp.example/authorize")!, issuer: "https://idp.example",
            issuerParameterSupported: false)
        do {
            _ = try queryPending.parse(.formPost("code=c1&state=\(queryRequest.state.value)"))
            Issue.record("a form post answered a query-mode login")
        } catch let error as OIDCError {
            #expect(error.code == .responseModeMismatch)
        }
        let typed = try FormPostUser(json: user)
        #expect(typed.firstName == "Ann" && typed.lastName == "Lee" && typed.email == "a@b.example")
        #expect(!typed.description.contains("Ann"))
        for bad in ["[]", "{\"name\":\"Ann\"}", "{\"email\":1}", "not json"] {
            do { _ = try FormPostUser(json: bad); Issue.record("accepted \(bad)") } catch let error as OIDCError {
                #expect(error.code == .malformedFormPostUser)
            }
        }
    }
}
