import OIDC
import OIDCNetworking

func previousCarrierSubject(in idToken: IDToken) async throws -> String? {
    let verifier = ForeignTokenVerifier(trustedIssuers: ["https://previous-carrier.example"],
                                        transport: URLSessionTransport())
    guard let portToken = try ForeignTokenVerifier.portToken(in: idToken) else { return nil }
    let ported = try await verifier.verify(portToken, audience: .contains("my-app"))
    return ported.subject
}
