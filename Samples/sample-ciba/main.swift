// sample-ciba: "confirm it in your banking app" for a server-side client (CIBA poll mode).
//
//   swift run sample-ciba --issuer URL --client-id ID --client-secret SECRET --login-hint HINT
//       [--binding-message TEXT] [--scope S]
//
// Discovers the provider, sends the backchannel authentication request (client_secret_basic),
// polls the token endpoint as the provider says (interval, slow_down +5 s) until the user decides,
// validates the ID Token and prints one JSON object: {"id_token_claims": {...}} (exit 0).
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
    let transport = URLSessionTransport()
    let discovery = Discovery(transport: transport)
    let clientID = command.required("--client-id")
    let metadata = try await discovery.metadata(for: command.required("--issuer"))
    guard let tokenEndpoint = metadata.tokenEndpoint,
          let endpoint = metadata.additionalFields["backchannel_authentication_endpoint"]?.stringValue.flatMap(URL.init(string:)) else {
        throw OIDCError(.discoveryMissingField, "the provider has no token_endpoint or backchannel_authentication_endpoint")
    }
    let client = try BackChannelClient(issuer: metadata.issuer,
                                       authentication: .clientSecretBasic(clientID: clientID, secret: command.required("--client-secret")),
                                       transport: transport)
    let started = try await client.startBackchannelAuthentication(
        BackchannelAuthenticationRequest(scope: command["--scope"] ?? "openid", hint: .loginHint(command.required("--login-hint")),
                                         bindingMessage: command["--binding-message"]),
        endpoint: endpoint)
    switch try await client.pollBackchannelAuthentication(started, tokenEndpoint: tokenEndpoint) {
    case .granted(let tokens):
        guard let idTokenText = tokens.idToken else { throw OIDCError(.invalidTokenResponse, "the token response has no id_token") }
        let validator = try await IDTokenValidator.discover(issuer: metadata.issuer, clientID: clientID, discovery: discovery,
                                                            keyCaches: JWKSetCacheRegistry(transport: transport))
        let idToken = try await validator.validate(idTokenText, expecting: IDTokenExpectations(nonce: .noNonceSent))
        print(JSONValue.object(["id_token_claims": .object(idToken.claims.object)]).jsonString())
    case .denied(let error), .expired(let error):
        command.fail(error.error)
    }
}
