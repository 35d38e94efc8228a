import JOSE

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The latest DPoP nonce each server gave (RFC 9449 §8, §9), remembered per
/// origin and per role: an authorization server's nonce is never sent to a
/// resource server, even on the same origin. Thread-safe; share one per client.
package final class DPoPNonceStore: Sendable {
    /// Which kind of server issued a nonce.
    package enum Role: String, Sendable, Hashable {
        /// Token, PAR, CIBA and device endpoints (RFC 9449 §8).
        case authorizationServer
        /// UserInfo and APIs (RFC 9449 §9).
        case resourceServer
    }

    /// The longest nonce kept; longer values are ignored.
    package static let maximumNonceLength = 1024
    private let nonces = Locked([String: String]())

    /// An empty store.
    package init() {}

    /// The nonce to send to `url`'s origin in `role`, if one was given.
    package func nonce(for url: URL, role: Role) -> String? {
        guard let key = Self.key(url, role) else { return nil }
        return nonces.withLock { $0[key] }
    }

    /// Remembers `nonce` for `url`'s origin in `role`. A value that is not an
    /// RFC 9449 `NQCHAR` string (or is too long) is ignored; returns whether it was kept.
    @discardableResult
    package func record(_ nonce: String, for url: URL, role: Role) -> Bool {
        guard Self.isValid(nonce), let key = Self.key(url, role) else { return false }
        nonces.withLock { $0[key] = nonce }
        return true
    }

    /// `nonce = 1*NQCHAR`, `NQCHAR = %x21 / %x23-5B / %x5D-7E` (RFC 9449 §8.1).
    static func isValid(_ nonce: String) -> Bool {
        let bytes = nonce.utf8
        guard !bytes.isEmpty, bytes.count <= maximumNonceLength else { return false }
        return bytes.allSatisfy { $0 == 0x21 || (0x23...0x5B).contains($0) || (0x5D...0x7E).contains($0) }
    }

    /// `role scheme://host:port`, with the scheme's default port made explicit.
    static func key(_ url: URL, _ role: Role) -> String? {
        guard let components = URLComponents(url: url, resolvingAgainstBaseURL: false),
            let scheme = components.scheme?.lowercased(), let host = components.host?.lowercased()
        else { return nil }
        let port = components.port ?? (scheme == "https" ? 443 : scheme == "http" ? 80 : -1)
        return "\(role.rawValue) \(scheme)://\(host):\(port)"
    }
}
