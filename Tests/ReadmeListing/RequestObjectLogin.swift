import Foundation
import JOSE
import OIDC

/// Starts a login whose parameters travel signed and encrypted, by reference: `store` keeps the request object
/// where the provider fetches it (the app serves `https://app.example.com/request-objects/<name>`).
func startLoginByReference(
    client: OIDCClient, signingKey: JWK,
    store: @escaping @Sendable (_ name: String, _ object: String) async throws -> Void
) async throws -> PendingLogin {
    let options = RequestObject.Configuration(
        signature: .signed(key: signingKey, algorithm: .es256),  // the registered request_object_signing_alg
        encryption: RequestObject.Encryption(algorithm: .rsaOAEP256),  // request_object_encryption_alg / _enc
        delivery: .byReference { object in
            let name = UUID().uuidString  // unguessable
            try await store(name, object)
            return URL(string: "https://app.example.com/request-objects/\(name)")!
        })
    return try await client.startLogin(LoginRequest(redirectURI: URL(string: "https://app.example.com/callback")!, requestObject: options))
}
