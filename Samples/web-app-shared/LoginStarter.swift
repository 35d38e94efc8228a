import Foundation
import OIDC
import OIDCSession
import Synchronization

/// How `GET /login` starts a login, in an order that leaves nothing behind when a step is refused:
///
/// 0. an in-memory store without room for the client refuses at once (nothing prepared, nothing fetched);
/// 1. the login is prepared (state, nonce, PKCE; with `--request-object`, the request object signed and,
///    with `--request-object-encrypt`, encrypted); by reference, its `request_uri` is chosen (a fresh id)
///    but nothing is published yet;
/// 2. the pending login is saved under the browser's handle, counted against the client's share
///    (`scope`: its address, ``ClientAddress``) — a full store or a full share refuses here;
/// 3. only then, by reference, the request object is published under that id; if publishing fails the
///    pending login is withdrawn, so neither store keeps half a login.
struct LoginStarter: Sendable {
    let client: OIDCClient
    let pendingLogins: any PendingLoginStore
    /// `--request-object`: how the request object is signed and encrypted (its delivery is decided here:
    /// by reference when `requestObjects` is set, else by value).
    let requestObject: RequestObject.Configuration?
    /// The request objects served by reference (`--request-object by-reference`).
    let requestObjects: RequestObjectHost?
    let redirectURI: URL
    let scopes: [String]
    let responseType: ResponseType
    /// How long a pending login waits for its callback (the login cookie lives as long).
    static let pendingLifetime: Double = 600

    /// Starts a login for the browser holding `handle`, counted against `scope`; returns the pending login
    /// (its `url` is the redirect to the provider).
    /// - Throws: `pending_login_store_full` / `request_object_store_full` (no room: the caller answers 503),
    ///   or whatever preparing the login, saving it or publishing the request object throws.
    func start(handle: String, scope: String?, configure: (inout LoginRequest) throws -> Void) async throws -> PendingLogin {
        // No room for this client: refused before anything is prepared (an encrypted request object costs a key-set fetch).
        if let memory = pendingLogins as? InMemoryPendingLoginStore, !(await memory.hasRoom(scope: scope)) {
            throw OIDCError(.pendingLoginStoreFull, "the pending-login store has no room for another login from this client")
        }
        var request = LoginRequest(redirectURI: redirectURI, scopes: scopes, responseType: responseType)
        try configure(&request)
        guard let requestObject else {
            let pending = try await client.startLogin(request)
            try await pendingLogins.save(pending, key: handle, expiresIn: Self.pendingLifetime, scope: scope)
            return pending
        }
        guard let host = requestObjects else {
            var byValue = requestObject
            byValue.delivery = .byValue
            request.requestObject = byValue
            let pending = try await client.startLogin(request)
            try await pendingLogins.save(pending, key: handle, expiresIn: Self.pendingLifetime, scope: scope)
            return pending
        }
        // By reference: the URL is fixed now, the request object is only captured (published in step 3).
        let id = try RequestObjectHost.newID()
        let location = try host.location(of: id)
        let captured = CapturedRequestObject()
        var byReference = requestObject
        byReference.delivery = .byReference { object in
            captured.keep(object)
            return location
        }
        request.requestObject = byReference
        let pending = try await client.startLogin(request)
        try await pendingLogins.save(pending, key: handle, expiresIn: Self.pendingLifetime, scope: scope)
        do {
            guard let object = captured.object else {
                throw OIDCError(.requestObjectFailed, "the login was prepared without a request object to publish")
            }
            try await host.publish(object, id: id, scope: scope)
        } catch {
            // Withdrawn: the saved pending login would wait for a callback that cannot come.
            _ = try? await pendingLogins.consumeBytes(key: handle)
            throw error
        }
        return pending
    }
}

/// The request object the toolkit hands to the by-reference `publish` callback, kept until the
/// pending login is saved.
final class CapturedRequestObject: Sendable {
    private let stored = Mutex<String?>(nil)
    func keep(_ object: String) { stored.withLock { $0 = object } }
    var object: String? { stored.withLock { $0 } }
}
