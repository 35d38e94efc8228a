// sample-fapi-login: the first half of a FAPI 2.0 login, as a bank's back end does it.
//
//   swift run sample-fapi-login --issuer URL --client-id ID --client-key KEY_FILE --redirect-uri URI
//       --dpop-key KEY_FILE --pending FILE [--scope S] [--assertion-audience issuer|endpoint]
//
// Discovers the provider, pushes the authorization request (PAR, RFC 9126) with private_key_jwt
// (the key file: a private JWK or PEM; ES256 for P-256, PS256 for RSA, EdDSA for Ed25519) and the
// DPoP key's thumbprint (dpop_jkt; a --dpop-key file that does not exist is created with a new
// P-256 key), saves the pending login (state, nonce, PKCE verifier: secrets, mode 0600) to FILE,
// and prints one JSON object: {"url": <authorization URL with client_id and request_uri only>, "state": ...}.
// Exit 0 on success, 1 with the typed error on stderr, 2 on usage errors.
import FAPISampleSupport
import Foundation
import JOSE
import OIDC
import OIDCNetworking

let command = SampleCommand(
    name: "sample-fapi-login",
    usage:
        "sample-fapi-login --issuer URL --client-id ID --client-key KEY_FILE --redirect-uri URI --dpop-key KEY_FILE --pending FILE [--scope S] [--assertion-audience issuer|endpoint]",
    known: ["--issuer", "--client-id", "--client-key", "--redirect-uri", "--dpop-key", "--pending", "--scope", "--assertion-audience"],
    required: ["--issuer", "--client-id", "--client-key", "--redirect-uri", "--dpop-key", "--pending"])
guard let redirectURI = URL(string: command.required("--redirect-uri")) else { command.usage("--redirect-uri is not a URL") }
_ = command.assertionAudience  // usage errors (exit 2) before anything else

await command.run {
    let client = try await command.fapiOIDCClient(transport: URLSessionTransport())
    var request = LoginRequest(redirectURI: redirectURI, push: .always)  // PAR: client_id and request_uri only
    if let scope = command["--scope"] { request.scopes = scope.split(separator: " ").map(String.init) }
    let pending = try await client.startLogin(request)
    try KeyFile.writePrivate(String(decoding: try JSONEncoder().encode(pending), as: UTF8.self), to: command.required("--pending"))
    print(JSONValue.object(["url": .string(pending.url.absoluteString), "state": .string(pending.state)]).jsonString())
}
