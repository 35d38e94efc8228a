import JOSE

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A login's parameters carried as the claims of a JWT the client signs, so the browser can neither read nor
/// change them when encrypted, nor change them when signed.
///
/// Ask for one with ``LoginRequest/requestObject`` and a ``Configuration``. RFC 9101 (JAR) and OpenID Connect
/// Core §6 define it; it travels by value (`request`), by reference (`request_uri`) or pushed (PAR).
public enum RequestObject {
    /// The `typ` header of request objects (RFC 9101 §10.8).
    package static let mediaType = "oauth-authz-req+jwt"
    /// The longest lifetime accepted (FAPI 2.0 Message Signing: `exp` − `nbf` at most 60 minutes).
    public static let maximumLifetime: TimeInterval = 3600

    /// Signs the authorization `parameters` as a request object.
    ///
    /// Claims: every parameter (`claims` as a JSON object, `authorization_details` as a JSON array, `max_age` as a number,
    /// the rest as strings; a parameter that repeats, such as RFC 8707 `resource`, as a
    /// JSON array of its values in order), `iss` = `client_id` = `clientID`, `aud` = `issuer`,
    /// `iat` = `nbf` = the whole second of `now` minus one (servers that accept no `nbf` in
    /// their future read a coarser clock), `exp` = `iat` + `lifetime`, a fresh 128-bit `jti`.
    /// Header: `typ: oauth-authz-req+jwt`, `alg`, and `kid` when the key has one.
    /// - Throws: ``OIDCError`` `.requestObjectFailed` when a parameter is `request` or
    ///   `request_uri`, the `claims` parameter is not a JSON object, `authorization_details` is not a JSON array,
    ///   `claims`, `max_age` or `client_id` appears more than once, `client_id`
    ///   differs from `clientID`, the lifetime is not in (0, 3600] seconds, `now` gives an `iat`/`exp`
    ///   outside a 64-bit NumericDate, or signing fails.
    package static func sign(
        parameters: [(name: String, value: String)], clientID: String, issuer: String, key: JWK,
        algorithm: JWSAlgorithm, lifetime: TimeInterval = 300, now: Date = Date()
    ) throws -> String {
        let claims = try self.claims(parameters: parameters, clientID: clientID, issuer: issuer, lifetime: lifetime, now: now)
        do {
            return try JWT.sign(claims, key: key, algorithm: algorithm, header: ["typ": .string(mediaType)])
        } catch let error as JOSEError {
            throw OIDCError(.requestObjectFailed, "the request object could not be signed", joseError: error)
        }
    }

    /// An unsigned request object (`alg: none`, OpenID Connect Core §6.1), with the claims of
    /// ``sign(parameters:clientID:issuer:key:algorithm:lifetime:now:)``: only to be encrypted to the provider
    /// (``encrypt(_:to:algorithm:encryption:)``), which gives confidentiality but not the client's signature.
    /// A provider that requires signed request objects refuses it.
    /// - Throws: as ``sign(parameters:clientID:issuer:key:algorithm:lifetime:now:)``.
    package static func unsigned(
        parameters: [(name: String, value: String)], clientID: String, issuer: String,
        lifetime: TimeInterval = 300, now: Date = Date()
    ) throws -> String {
        let claims = try self.claims(parameters: parameters, clientID: clientID, issuer: issuer, lifetime: lifetime, now: now)
        let header: JSONObject = ["alg": "none", "typ": .string(mediaType)]
        return Base64URL.encode(Array(JSONValue.object(header).jsonString().utf8)) + "." + Base64URL.encode(Array(claims.jsonString().utf8)) + "."
    }

    /// The claims of a request object (see ``sign(parameters:clientID:issuer:key:algorithm:lifetime:now:)``).
    private static func claims(
        parameters: [(name: String, value: String)], clientID: String, issuer: String,
        lifetime: TimeInterval, now: Date
    ) throws -> JSONObject {
        guard lifetime > 0, lifetime <= maximumLifetime else {
            throw OIDCError(.requestObjectFailed, "a request object's lifetime must be between 1 and \(maximumLifetime.wholeText) seconds")
        }
        var claims = JSONObject()
        for (name, value) in parameters {
            let claim: JSONValue
            switch name {
            case "request", "request_uri":
                throw OIDCError(.requestObjectFailed, "a request object cannot carry \"\(name)\"")
            case "client_id" where value != clientID:
                throw OIDCError(.requestObjectFailed, "the client_id parameter differs from the request object's client")
            case "claims":
                guard let object = try? JSONParser.parseObject(Array(value.utf8), what: "claims") else {
                    throw OIDCError(.requestObjectFailed, "the claims parameter is not a JSON object")
                }
                claim = .object(object)
            case AuthorizationDetail.parameterName:
                guard let value = try? JSONParser.parse(Array(value.utf8)), value.arrayValue != nil else {
                    throw OIDCError(.requestObjectFailed, "the authorization_details parameter is not a JSON array")
                }
                claim = value
            case "max_age":
                claim = Int64(value).map { .integer($0) } ?? .string(value)
            default:
                claim = .string(value)
            }
            switch claims[name] {
            case nil:
                claims[name] = claim
            case .array(let values)? where name != "claims" && name != "max_age" && name != AuthorizationDetail.parameterName:
                claims[name] = .array(values + [claim])
            case let first?
            where name != "claims" && name != "max_age" && name != "client_id"
                && name != AuthorizationDetail.parameterName:
                claims[name] = .array([first, claim])
            default:
                throw OIDCError(.requestObjectFailed, "the \"\(name)\" parameter appears more than once")
            }
        }
        guard let times = AssertionTimes.issuedAndExpiry(now: now, lifetime: lifetime, rounding: .down) else {
            throw OIDCError(
                .requestObjectFailed,
                "the request object's iat/exp do not fit in a 64-bit NumericDate "
                    + "(the clock reads \(now.timeIntervalSince1970.wholeText) s)")
        }
        claims["iss"] = .string(clientID)
        claims["client_id"] = .string(clientID)
        claims["aud"] = .string(issuer)
        claims["iat"] = .integer(times.issuedAt)
        claims["nbf"] = .integer(times.issuedAt)
        claims["exp"] = .integer(times.expiresAt)
        claims["jti"] = .string(try RandomText.base64URL(byteCount: 16))
        return claims
    }

    /// Encrypts a request object to the provider (OpenID Connect Core §6.1, RFC 9101 §6.1: sign, then
    /// encrypt; `cty: JWT`) with its current encryption key: the first key of `providerKeys` with `use: enc`
    /// (or, when no key of the set states a `use`, the first key) whose type and `alg` admit `algorithm`;
    /// never a `use: sig` key, nor a key without `use` in a set whose other keys state theirs.
    /// - Parameters:
    ///   - requestObject: the signed request object (``sign(parameters:clientID:issuer:key:algorithm:lifetime:now:)``).
    ///   - providerKeys: the provider's JWK Set (`jwks_uri`).
    ///   - algorithm: the registered `request_object_encryption_alg`; `nil`: `RSA-OAEP-256` for an RSA key, `ECDH-ES` for an EC key.
    ///   - encryption: the registered `request_object_encryption_enc` (default `A128CBC-HS256`, the registration default).
    /// - Returns: the compact JWE, with the key's `kid`.
    /// - Throws: ``OIDCError`` `.requestObjectFailed` when the provider publishes no fitting encryption key or encryption fails.
    package static func encrypt(
        _ requestObject: String, to providerKeys: JWKSet, algorithm: JWEKeyAlgorithm? = nil,
        encryption: JWEContentEncryption = .a128CBCHS256
    ) throws -> String {
        for key in providerKeys.providerEncryptionKeys {
            let chosen: JWEKeyAlgorithm?
            switch key.keyType {
            case .rsa: chosen = algorithm ?? .rsaOAEP256
            case .ec, .x25519: chosen = algorithm ?? .ecdhES
            default: chosen = nil
            }
            guard let chosen, key.admits(chosen, encryption: encryption), key.permitsJWE(chosen, decrypting: false) else { continue }
            do {
                return try CompactJWE.encrypt(requestObject, to: key, algorithm: chosen, encryption: encryption, contentType: "JWT")
            } catch let error as JOSEError {
                throw OIDCError(.requestObjectFailed, "the request object could not be encrypted", joseError: error)
            }
        }
        throw OIDCError(
            .requestObjectFailed,
            "the provider publishes no encryption key (use: enc; a use: sig key is never used) for \(algorithm?.rawValue ?? "RSA-OAEP-256 or ECDH-ES") + \(encryption)"
        )
    }

    /// The authorization URL that carries a request object by value: `client_id`
    /// and `request` only (RFC 9101 §5), plus any `outerParameters` a provider also
    /// wants outside (OpenID Connect asks for `response_type` and `scope`).
    package static func authorizationURL(
        authorizationEndpoint: URL, clientID: String, requestObject: String,
        outerParameters: [(name: String, value: String)] = []
    ) throws -> URL {
        try PushedAuthorization.frontChannelURL(authorizationEndpoint, [("client_id", clientID), ("request", requestObject)] + outerParameters)
    }

    /// The authorization URL that carries a request object by reference (OpenID Connect Core §6.2, RFC 9101 §5.2):
    /// `client_id` and `request_uri`, plus any `outerParameters` (as for ``authorizationURL(authorizationEndpoint:clientID:requestObject:outerParameters:)``).
    /// - Throws: ``OIDCError`` `.invalidIssuerURL` / `.insecureURL` when `requestURI` or the endpoint is not `https`
    ///   (or `http` on a loopback host).
    package static func authorizationURL(
        authorizationEndpoint: URL, clientID: String, requestURI: URL,
        outerParameters: [(name: String, value: String)] = []
    ) throws -> URL {
        try SecureURLPolicy.check(requestURI, what: "the request_uri")
        return try PushedAuthorization.frontChannelURL(
            authorizationEndpoint,
            [("client_id", clientID), ("request_uri", requestURI.absoluteString)]
                + outerParameters)
    }
}
