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
    usage:
        "sample-fapi-finish --issuer URL --client-id ID --client-key KEY_FILE --dpop-key KEY_FILE --pending FILE --callback URL --save-tokens FILE [--assertion-audience issuer|endpoint]",
    known: ["--issuer", "--client-id", "--client-key", "--dpop-key", "--pending", "--callback", "--save-tokens", "--assertion-audience"],
    required: ["--issuer", "--client-id", "--client-key", "--dpop-key", "--pending", "--callback", "--save-tokens"])
guard let callback = URL(string: command.required("--callback")) else { command.usage("--callback is not a URL") }
_ = command.assertionAudience  // usage errors (exit 2) before anything else

await command.run {
    let client = try await command.fapiOIDCClient(transport: URLSessionTransport())
    let pending = try JSONDecoder().decode(PendingLogin.self, from: Data(contentsOf: URL(fileURLWithPath: command.required("--pending"))))
    let login = try await client.finishLogin(pending, callback: .url(callback))  // token_type DPoP required
    let userInfo = try await client.userInfo(login.tokens)  // DPoP, sub checked
    try await FileTokenStore(path: command.required("--save-tokens")).save(login.tokens)
    print(
        JSONValue.object([
            "id_token_claims": .object(login.idToken.claims.object), "token_type": .string(login.tokens.tokenType),
            "userinfo": .object(userInfo),
        ]).jsonString())
}
