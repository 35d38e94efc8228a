import JOSE

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension OIDCClient {
    /// A JARM response (JWT Secured Authorization Response Mode §4.4): the `response` JWT found where the
    /// response mode puts it, decrypted when it is a JWE (the client's keys, under
    /// ``Configuration/authorizationResponseEncryption``), its signature verified with the provider's keys,
    /// `iss` equal to the issuer, `aud` containing the client id and `exp` not past (with the leeway) —
    /// all before any of its parameters is read; then `state`, `iss` and the response type's members are
    /// checked as for a plain redirect.
    /// - Throws: ``OIDCError`` `.invalidAuthorizationResponseJWT`, `.redirectURIMismatch`, `.responseModeMismatch`,
    ///   and every code of ``PendingAuthorization/parseRedirect(_:)``.
    func jarmResponse(_ callback: AuthorizationCallback, for pending: PendingAuthorization) async throws -> AuthorizationResponse {
        let outer = try jarmParameters(callback, for: pending)
        let responses = outer.filter { $0.name == "response" }
        guard responses.count == 1, let token = responses.first?.value, !token.isEmpty else {
            if responses.isEmpty, outer.contains(where: { $0.name == "error" }) {
                // A provider that refuses the request before honouring the mode: a plain error, still state-checked.
                return try RedirectCheck.response(from: outer, for: pending)
            }
            throw OIDCError(
                .invalidAuthorizationResponseJWT,
                responses.isEmpty
                    ? "the JARM response has no \"response\" parameter"
                    : "the JARM response has \(responses.count) \"response\" parameters")
        }
        let claims = try await verifiedJARMClaims(token)
        var parameters: [(name: String, value: String)] = []
        for member in claims where !["aud", "exp", "iat", "nbf", "jti"].contains(member.name) {
            if let text = member.value.stringValue {
                parameters.append((member.name, text))
            } else if let number = member.value.int64Value {
                parameters.append((member.name, String(number)))
            }
        }
        return try RedirectCheck.response(from: parameters, for: pending)
    }

    /// The outer parameters of a JARM callback, read where the response mode puts them.
    private func jarmParameters(_ callback: AuthorizationCallback, for pending: PendingAuthorization) throws -> [(name: String, value: String)] {
        switch callback {
        case .url(let url):
            guard let components = URLComponents(url: url, resolvingAgainstBaseURL: false) else {
                throw OIDCError(.redirectURIMismatch, "the redirect is not a valid URL")
            }
            try RedirectCheck.requireSameEndpoint(components, as: pending.request.redirectURI)
            let query = RedirectCheck.removingRedirectURIQuery(
                from: try FormURLEncoding.parse(components.percentEncodedQuery ?? ""),
                redirectURI: pending.request.redirectURI)
            let fragment = try FormURLEncoding.parse(components.percentEncodedFragment ?? "")
            let inFragment: Bool
            switch pending.responseMode {
            case .fragmentJWT: inFragment = true
            case .jwt: inFragment = pending.request.responseType != .code
            case .formPostJWT:
                throw OIDCError(.responseModeMismatch, "the request asked for response_mode=form_post.jwt; pass the POST body as .formPost (or .parameters)")
            default: inFragment = false
            }
            let (expected, other) = inFragment ? (fragment, query) : (query, fragment)
            if !expected.contains(where: { $0.name == "response" }), other.contains(where: { $0.name == "response" }) {
                throw OIDCError(.responseModeMismatch, "the JARM response is in the \(inFragment ? "query" : "fragment"), not where the request expects it")
            }
            return expected.isEmpty ? other.filter { $0.name != "response" } : expected
        case .parameters(let encoded):
            var text = Substring(encoded)
            if text.hasPrefix("?") || text.hasPrefix("#") { text = text.dropFirst() }
            return RedirectCheck.removingRedirectURIQuery(from: try FormURLEncoding.parse(String(text)), redirectURI: pending.request.redirectURI)
        case .formPost(let body):
            // A form_post.jwt answer: the POST body carries `response` (and nothing the redirect URI adds).
            guard pending.responseMode == .formPostJWT else {
                throw OIDCError(.responseModeMismatch, "a form_post body arrived for a login that did not ask for response_mode=form_post.jwt")
            }
            return try FormURLEncoding.parse(body)
        case .decodedParameters(let values):
            return values.sorted { $0.key < $1.key }.map { (name: $0.key, value: $0.value) }
        case .codeCheckedByApp:
            throw OIDCError(.responseModeMismatch, "a code checked by the app carries no JARM response")
        }
    }

    /// The claims of a JARM response JWT, once decrypted (if encrypted), verified and checked.
    private func verifiedJARMClaims(_ token: String) async throws -> JSONObject {
        var signed = token
        let registered = configuration.authorizationResponseEncryption
        if NestedJWT.isEncrypted(token) {
            let keys = validator.config.decryptionKeys
            guard !keys.isEmpty else {
                throw OIDCError(.invalidAuthorizationResponseJWT, "the JARM response is encrypted and the client has no decryption key")
            }
            do {
                signed = try NestedJWT.signedToken(
                    in: token, decryptionKeys: keys,
                    policy: ResponseEncryption.policy(registered, minimumRSAKeyBits: validator.config.minimumRSAKeyBits))
            } catch let error as JOSEError {
                throw OIDCError(.invalidAuthorizationResponseJWT, "the encrypted JARM response cannot be decrypted: \(error.reason)", joseError: error)
            }
        } else if let registered {
            throw OIDCError(.invalidAuthorizationResponseJWT, "the JARM response is not encrypted and the client registered \(registered)")
        }
        let claims: JSONObject
        do {
            let jws = try CompactJWS(signed, limits: validator.config.limits)
            let algorithm = try VerificationErrors.algorithm(of: jws.header)
            try await validator.verifySignature(
                jws, algorithm: algorithm, allowed: configuration.allowedAlgorithms ?? validator.config.effectiveAlgorithms,
                what: "JARM response")
            claims = try JSONParser.parseObject(jws.payload, what: "the JARM response's claims")
        } catch let error as OIDCError {
            throw OIDCError(.invalidAuthorizationResponseJWT, "the JARM response does not verify: \(error.reason)", joseError: error.joseError)
        } catch let error as JOSEError {
            throw OIDCError(.invalidAuthorizationResponseJWT, "the JARM response is not a well-formed JWT", joseError: error)
        }
        guard claims["iss"]?.stringValue == issuer else {
            throw OIDCError(.invalidAuthorizationResponseJWT, "the JARM response's \"iss\" is not the issuer")
        }
        let aud = claims["aud"]
        let audiences = aud?.stringValue.map { [$0] } ?? (aud?.arrayValue ?? []).compactMap(\.stringValue)
        guard audiences.contains(clientID) else {
            throw OIDCError(.invalidAuthorizationResponseJWT, "the JARM response's \"aud\" does not contain the client id")
        }
        do {
            try TimeClaims.check(
                JWTClaims(claims), now: configuration.clock(), leeway: Leeway.effective(configuration.leeway), requiresExpiration: true,
                requiresIssuedAt: false, checksExpiration: true, what: "the JARM response")
        } catch let error as OIDCError {
            throw OIDCError(.invalidAuthorizationResponseJWT, error.reason, joseError: error.joseError)
        }
        return claims
    }
}
