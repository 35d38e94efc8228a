// sample-fapi-finish: the second half of a FAPI 2.0 login, in another process.
//
//   swift run sample-fapi-finish --issuer URL --client-id ID --client-key KEY_FILE --dpop-key KEY_FILE
//       --pending FILE --callback URL --save-tokens FILE [--assertion-audience issuer|endpoint]
//
// Reads the pending login saved by sample-fapi-login, checks the redirect (state, RFC 9207 iss,
// error responses), exchanges the code with the PKCE verifier, private_key_jwt and a DPoP proof
// (answering a use_dpop_nonce challenge once), requires token_type DPoP, validates the ID Token
// (signature, iss, aud, exp, iat, nonce), calls UserInfo with Authorization: DPoP and a fresh proof
// (its sub must match), saves the tokens (mode 0600) and prints one JSON object, never the tokens:
//   {"id_token_claims": {...}, "token_type": "DPoP", "userinfo": {...}}
// Exit 0 on success, 1 with the typed error on stderr, 2 on usage errors.
import FAPISampleSupport
import Foundation
import JOSE
import OIDC
import OIDCNetworking
import OIDCSession

let command = SampleCommand(
    name: "sample-fapi-finish",
    usage: "sample-fapi-finish --issuer URL --client-id ID --client-key KEY_FILE --dpop-key KEY_FILE --pending FILE --callback URL --save-tokens FILE [--assertion-audience issuer|endpoint]",
    known: ["--issuer", "--client-id", "--client-key", "--dpop-key", "--pending", "--callback", "--save-tokens", "--assertion-audience"],
    required: ["--issuer", "--client-id", "--client-key", "--dpop-key", "--pending", "--callback", "--save-tokens"])
guard let callback = URL(string: command.required("--callback")) else { command.usage("--callback is not a URL") }
let audience = command.assertionAudience

await command.run {
    let transport = URLSessionTransport()
    let discovery = Discovery(transport: transport)
    let issuer = command.required("--issuer"), clientID = command.required("--client-id")
    let metadata = try await discovery.metadata(for: issuer)
    guard let tokenEndpoint = metadata.tokenEndpoint, let userinfoEndpoint = metadata.userinfoEndpoint else {
        throw OIDCError(.discoveryMissingField, "the provider has no token_endpoint or userinfo_endpoint")
    }
    let pending = try JSONDecoder().decode(PendingAuthorization.self, from: Data(contentsOf: URL(fileURLWithPath: command.required("--pending"))))
    guard pending.request.clientID == clientID, pending.issuer == metadata.issuer else {
        throw OIDCError(.invalidRequestParameter, "the pending login was started for another client or issuer")
    }
    let redirect = try pending.parseRedirect(callback)
    guard let code = redirect.code else { throw OIDCError(.invalidRequestParameter, "the redirect carries no code") }
    let client = try fapiClient(issuer: metadata.issuer, clientID: clientID, keyPath: command.required("--client-key"),
                                dpopPath: command.required("--dpop-key"), audience: audience, transport: transport)
    var parameters: [(name: String, value: String)] = [("grant_type", "authorization_code"), ("code", code),
                                                       ("redirect_uri", pending.request.redirectURI.absoluteString)]
    if let verifier = pending.request.pkce?.verifier.value { parameters.append(("code_verifier", verifier)) }
    let tokens = try await client.requestTokens(parameters, at: tokenEndpoint)  // token_type DPoP required
    guard let idTokenText = tokens.idToken else { throw OIDCError(.invalidTokenResponse, "the token response has no id_token") }
    let validator = try await IDTokenValidator.discover(issuer: metadata.issuer, clientID: clientID, discovery: discovery,
                                                        keyCaches: JWKSetCacheRegistry(transport: transport))
    let idToken = try await validator.validate(idTokenText, expecting: IDTokenExpectations(nonce: ExpectedNonce(pending.request.nonce)))

    guard let dpop = client.dpop else { throw OIDCError(.dpopProofFailed, "no DPoP key") }
    let response = try await dpop.send(role: .resourceServer, accessToken: tokens.accessToken, transport: transport) {
        HTTPRequest(url: userinfoEndpoint, headers: ["Accept": "application/json"])
    }
    let userInfo = try client.answer(response, from: .userinfo)
    try TokenClient.checkUserInfoSubject(userInfo, idTokenSubject: idToken.subject)
    try await FileTokenStore(path: command.required("--save-tokens")).save(tokens)
    print(JSONValue.object(["id_token_claims": .object(idToken.claims.object), "token_type": .string(tokens.tokenType),
                            "userinfo": .object(userInfo)]).jsonString())
}
