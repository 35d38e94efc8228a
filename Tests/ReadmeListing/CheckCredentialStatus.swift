import JOSE
import OIDC

/// Whether the issuer still stands by a credential (draft-ietf-oauth-status-list).
func checkStatus(of credentialClaims: JSONObject, issuerKeys: JWKSet, statusLists: StatusListCache) async throws {
    guard let reference = try StatusListReference(claims: credentialClaims) else { return }  // no status mechanism
    let status = try await statusLists.status(of: reference, keys: issuerKeys)
    try status.requireValid()  // credential_revoked, credential_suspended, credential_status_not_valid
}
