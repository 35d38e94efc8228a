// sample-ciba: "confirm it in your banking app" for a server-side client (CIBA poll mode).
//
//   swift run sample-ciba --issuer URL --client-id ID --client-secret SECRET --login-hint HINT
//       [--binding-message TEXT] [--scope S]
//
// One OIDCClient (discovery, client_secret_basic): sends the backchannel authentication request,
// polls the token endpoint as the provider says (interval, slow_down +5 s) until the user decides;
// the client validates the ID Token. Prints one JSON object: {"id_token_claims": {...}} (exit 0).
// A refusal or an expiry prints the typed outcome on stderr ("access_denied", "expired_token"),
// exit 1; any other error too; usage errors exit 2. Interrupting it cancels the polling.
import FAPISampleSupport
import Foundation
import JOSE
import OIDC
import OIDCNetworking

let command = SampleCommand(
    name: "sample-ciba",
    usage: "sample-ciba --issuer URL --client-id ID --client-secret SECRET --login-hint HINT [--binding-message TEXT] [--scope S]",
    known: ["--issuer", "--client-id", "--client-secret", "--login-hint", "--binding-message", "--scope"],
    required: ["--issuer", "--client-id", "--client-secret", "--login-hint"])

await command.run {
    let client = try await OIDCClient.discover(
        issuer: command.required("--issuer"),
        authentication: .clientSecretBasic(clientID: command.required("--client-id"), secret: command.required("--client-secret")),
        transport: URLSessionTransport())
    let started = try await client.startBackchannelLogin(
        DecoupledAuthenticationRequest(
            scope: command["--scope"] ?? "openid", hint: .loginHint(command.required("--login-hint")),
            bindingMessage: command["--binding-message"]))
    switch try await client.finishBackchannelLogin(started) {  // token type checked, ID Token validated
    case .loggedIn(_, let idToken?):
        print(JSONValue.object(["id_token_claims": .object(idToken.claims.object)]).jsonString())
    case .loggedIn(_, nil):
        throw OIDCError(.missingIDToken, "the token response has no id_token")
    case .denied(let error), .expired(let error):
        command.fail(error.error)
    }
}
