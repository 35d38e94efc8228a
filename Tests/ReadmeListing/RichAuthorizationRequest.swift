import Foundation
import OIDC
import OIDCResourceServer

struct PaymentInitiation: Codable {
    var type = "payment_initiation"
    var actions: [String]
    var locations: [String]
}

/// The client asks for a payment; the API reads what was granted from the access token.
func startPaymentLogin(_ client: OIDCClient, redirectURI: URL) async throws -> PendingLogin {
    var request = LoginRequest(redirectURI: redirectURI, scopes: ["openid", "api.read"])
    request.authorizationDetails = [
        try AuthorizationDetail(
            PaymentInitiation(
                actions: ["initiate"],
                locations: ["https://api.example/payments"]))
    ]
    return try await client.startLogin(request)
}

func grantedPayments(_ token: AccessToken) throws -> [PaymentInitiation] {
    try token.requireAuthorizationDetails(types: ["payment_initiation"])
        .decode(PaymentInitiation.self, ofType: "payment_initiation")
}
