import OIDC
import OIDCNetworking

func previousCarrierSubject(in idToken: IDToken) async throws -> String? {
    let verifier = ForeignTokenValidator(
        trustedIssuers: ["https://previous-carrier.example"],
        transport: URLSessionTransport())
    guard let portToken = try ForeignTokenValidator.portToken(in: idToken) else { return nil }
    let ported = try await verifier.validate(portToken, audience: .contains("my-app"))
    return ported.subject
}
