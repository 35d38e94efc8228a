import JOSE

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension DPoPKey {
    /// A DPoP proof JWT (RFC 9449 §4.2) for one HTTP request.
    ///
    /// Header: `typ: dpop+jwt`, `alg`, `jwk` (public members only). Claims: a fresh
    /// random `jti` (128 bits), `htm`, `htu` (the URL without query and fragment),
    /// `iat` (the whole second of `now` minus one, like every JWT the client signs: servers
    /// that accept no `iat` in the future read a coarser clock than ours), `ath` (Base64URL SHA-256 of `accessToken`) when an access token
    /// is presented, and `nonce` when the server gave one.
    /// - Throws: ``OIDCError`` `.dpopInvalidTarget` for a URL that is not absolute
    ///   http(s), `.dpopProofFailed` when signing fails or `now` is outside a 64-bit NumericDate.
    package func proof(method: String, url: URL, accessToken: String? = nil, nonce: String? = nil, now: Date = Date()) throws -> String {
        let htu = try DPoPKey.htu(for: url)
        guard let issuedAt = AssertionTimes.issuedAt(now: now) else {
            throw OIDCError(
                .dpopProofFailed,
                "the DPoP proof's iat does not fit in a 64-bit NumericDate "
                    + "(the clock reads \(now.timeIntervalSince1970.wholeText) s)")
        }
        var claims: JSONObject = [
            "jti": .string(try RandomText.base64URL(byteCount: 16)), "htm": .string(method.uppercased()),
            "htu": .string(htu), "iat": .integer(issuedAt),
        ]
        if let accessToken { claims["ath"] = .string(DPoPKey.accessTokenHash(accessToken)) }
        if let nonce { claims["nonce"] = .string(nonce) }
        do {
            return try signer.sign(payload: Array(claims.jsonString().utf8))
        } catch let error as JOSEError {
            throw OIDCError(.dpopProofFailed, "the DPoP proof could not be signed", joseError: error)
        }
    }

    /// `ath`: Base64URL of the SHA-256 of the access token's ASCII bytes (RFC 9449 §4.2).
    package static func accessTokenHash(_ accessToken: String) -> String {
        accessTokenHash(accessToken[...])
    }

    /// As ``accessTokenHash(_:)-(String)`` for a token that is part of a longer text (an `Authorization`
    /// value): its bytes are hashed where they lie.
    package static func accessTokenHash(_ accessToken: Substring) -> String { DPoPAccessTokenHash.of(accessToken) }

    /// `htu`: the request URL without query and fragment (RFC 9449 §4.2), scheme and host lower-cased.
    /// - Throws: ``OIDCError`` `.dpopInvalidTarget` unless `url` is absolute http or https with a host.
    package static func htu(for url: URL) throws -> String {
        guard var components = URLComponents(url: url, resolvingAgainstBaseURL: false),
            let scheme = components.scheme?.lowercased(), scheme == "https" || scheme == "http",
            let host = components.host, !host.isEmpty
        else {
            throw OIDCError(.dpopInvalidTarget, "a DPoP proof needs an absolute http(s) URL with a host")
        }
        components.scheme = scheme
        components.host = host.lowercased()
        components.query = nil
        components.fragment = nil
        components.user = nil
        components.password = nil
        if components.path.isEmpty { components.path = "/" }
        guard let text = components.string else { throw OIDCError(.dpopInvalidTarget, "the DPoP target URL could not be normalised") }
        return text
    }
}
