import JOSE

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension OIDCClient {
    /// The `Accept` header of a UserInfo request: `application/jwt` when a signed or encrypted answer is
    /// registered, or when the client was given decryption keys (a provider such as glewlwyd signs and encrypts
    /// UserInfo only when asked so); `application/json` otherwise.
    var userInfoAccept: String {
        configuration.userInfoFormat.requiresJWT || !configuration.decryptionKeys.keys.isEmpty ? "application/jwt" : "application/json"
    }

    /// Calls UserInfo and reads the answer in the registered form (``Configuration/userInfoFormat``).
    func fetchUserInfoClaims(accessToken: String) async throws -> JSONObject {
        let endpoint = try endpoint(metadata.userinfoEndpoint, "userinfo_endpoint")
        let response = try await tokenClient.userInfoResponse(
            accessToken: accessToken, endpoint: endpoint, accept: userInfoAccept, tokenInFormBody: configuration.userInfoTokenInFormBody)
        return try await userInfoClaims(from: response)
    }

    /// The claims of a UserInfo response: JSON as it is; a JWT decrypted (with the client's keys, under the
    /// registered algorithms) and its signature verified with the provider's keys, `iss` and `aud` checked
    /// when present (OpenID Connect Core §5.3.2). The form must be the registered one.
    /// - Throws: ``OIDCError`` `.unexpectedUserInfoFormat`, `.userInfoDecryptionFailed`, `.invalidUserInfoJWT`,
    ///   the UserInfo endpoint's body codes.
    func userInfoClaims(from response: TransportResponse) async throws -> JSONObject {
        let format = configuration.userInfoFormat
        let mediaType = String(
            decoding: Self.trimmed(Array((response.headers["Content-Type"] ?? "").utf8.prefix { $0 != UInt8(ascii: ";") })),
            as: UTF8.self
        ).lowercased()
        let body = Self.trimmed(response.body)
        let firstByte = body.first
        guard mediaType == "application/jwt" || (format.requiresJWT && firstByte != UInt8(ascii: "{")) else {
            guard !format.requiresJWT else {
                throw OIDCError(.unexpectedUserInfoFormat, "UserInfo answered JSON and the client registered a \(format) answer", endpoint: .userinfo)
            }
            return try tokenClient.userInfoObject(from: response)
        }
        guard let text = String(validating: body, as: UTF8.self), !text.isEmpty else {
            throw OIDCError(.invalidUserInfoJWT, "UserInfo answered application/jwt with a body that is not a token", endpoint: .userinfo)
        }
        var signed = text
        if NestedJWT.isEncrypted(text) {
            let plaintext = try decryptUserInfo(text, format: format)
            guard let inner = String(validating: plaintext, as: UTF8.self), inner.utf8.first != UInt8(ascii: "{") else {
                guard !format.requiresSignature else {
                    throw OIDCError(
                        .unexpectedUserInfoFormat, "the encrypted UserInfo holds JSON and the client registered a signed answer", endpoint: .userinfo)
                }
                do {
                    return try JSONParser.parseObject(plaintext, what: "the decrypted UserInfo")
                } catch let error as JOSEError {
                    throw OIDCError(
                        .invalidUserInfoJWT, "the decrypted UserInfo is neither a JSON object nor a signed JWT", joseError: error, endpoint: .userinfo)
                }
            }
            signed = inner
        } else if let registered = format.encryption {
            throw OIDCError(.unexpectedUserInfoFormat, "UserInfo is not encrypted and the client registered \(registered)", endpoint: .userinfo)
        }
        return try await verifiedUserInfo(signed)
    }

    /// `bytes` without leading and trailing ASCII whitespace.
    static func trimmed(_ bytes: [UInt8]) -> [UInt8] {
        let isSpace: (UInt8) -> Bool = { $0 == 0x20 || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D }
        guard let start = bytes.firstIndex(where: { !isSpace($0) }), let end = bytes.lastIndex(where: { !isSpace($0) }) else { return [] }
        return Array(bytes[start...end])
    }

    private func decryptUserInfo(_ text: String, format: UserInfoFormat) throws -> [UInt8] {
        let keys = validator.config.decryptionKeys
        guard !keys.isEmpty else {
            throw OIDCError(.userInfoDecryptionFailed, "UserInfo is encrypted and the client has no decryption key", endpoint: .userinfo)
        }
        do {
            let jwe = try CompactJWE(text)
            if let contentType = jwe.header.contentType, contentType.uppercased() != "JWT" {
                throw JOSEError(.malformedToken, "the encrypted UserInfo's \"cty\" is not JWT", member: "cty")
            }
            return try keys.decrypt(jwe, policy: ResponseEncryption.policy(format.encryption, minimumRSAKeyBits: validator.config.minimumRSAKeyBits)).plaintext
        } catch let error as JOSEError {
            throw OIDCError(.userInfoDecryptionFailed, "the encrypted UserInfo cannot be decrypted: \(error.reason)", joseError: error, endpoint: .userinfo)
        }
    }

    /// A signed UserInfo JWT: signature with the provider's keys under its UserInfo algorithms (else the ID Token
    /// ones), then `iss` and `aud` when present.
    private func verifiedUserInfo(_ token: String) async throws -> JSONObject {
        let claims: JSONObject
        do {
            let jws = try CompactJWS(token, limits: validator.config.limits)
            let algorithm = try VerificationErrors.algorithm(of: jws.header)
            let advertised = Set((metadata.userinfoSigningAlgValuesSupported ?? []).compactMap(JWSAlgorithm.init(rawValue:)))
            let allowed = configuration.allowedAlgorithms ?? (advertised.isEmpty ? validator.config.effectiveAlgorithms : advertised)
            try await validator.verifySignature(jws, algorithm: algorithm, allowed: allowed, what: "UserInfo JWT")
            claims = try JSONParser.parseObject(jws.payload, what: "the UserInfo JWT's claims")
        } catch let error as OIDCError {
            throw OIDCError(.invalidUserInfoJWT, "the signed UserInfo does not verify: \(error.reason)", joseError: error.joseError, endpoint: .userinfo)
        } catch let error as JOSEError {
            throw OIDCError(.invalidUserInfoJWT, "the signed UserInfo is not a well-formed JWT", joseError: error, endpoint: .userinfo)
        }
        if let iss = claims["iss"] {
            guard iss.stringValue == issuer else {
                throw OIDCError(.invalidUserInfoJWT, "the signed UserInfo's \"iss\" is not the issuer", endpoint: .userinfo)
            }
        }
        if let aud = claims["aud"] {
            let audiences = aud.stringValue.map { [$0] } ?? (aud.arrayValue ?? []).compactMap(\.stringValue)
            guard audiences.contains(clientID) else {
                throw OIDCError(.invalidUserInfoJWT, "the signed UserInfo's \"aud\" does not contain the client id", endpoint: .userinfo)
            }
        }
        return claims
    }
}
