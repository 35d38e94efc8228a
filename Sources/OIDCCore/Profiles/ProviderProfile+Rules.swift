import JOSE

/// The checks each ``ProviderProfile`` replaces or adds; one place, used by discovery and the ID Token validator.
extension ProviderProfile {
    /// The aliases of a multi-tenant Entra ID endpoint.
    package static let entraAliases: Set<String> = ["common", "organizations", "consumers"]

    /// An Entra ID issuer split around its tenant segment: `prefix + "/" + tenant + "/v2.0"`.
    package static func entraParts(_ issuer: String) -> (prefix: Substring, tenant: Substring)? {
        guard issuer.hasSuffix("/v2.0") else { return nil }
        let head = issuer.dropLast("/v2.0".count)
        guard let slash = head.lastIndex(of: "/") else { return nil }
        let prefix = head[..<slash]
        guard withoutScheme(String(prefix)) != nil else { return nil }
        return (prefix, head[head.index(after: slash)...])
    }

    /// Whether the discovery document's `issuer` is what this profile's provider publishes for the
    /// requested issuer (besides an exact match, always accepted). Entra multi-tenant only: the requested
    /// issuer's alias segment replaced by the template `{tenantid}` (or, for `consumers`, the consumer tenant).
    package func acceptsDiscoveredIssuer(_ published: String, requested: String) -> Bool {
        guard case .entra = self, let parts = Self.entraParts(requested), Self.entraAliases.contains(String(parts.tenant)) else {
            return false
        }
        if published == "\(parts.prefix)/{tenantid}/v2.0" { return true }
        return parts.tenant == "consumers" && published == "\(parts.prefix)/\(EntraTenants.consumerTenant)/v2.0"
    }

    /// The profile's `iss` rule for an ID Token (in place of the exact comparison), and its narrowings.
    /// - Throws: ``OIDCError`` `.issuerMismatch`, `.tenantNotAllowed`, `.hostedDomainNotAllowed`.
    package func checkIssuer(_ issuer: String, claims: JWTClaims, configured: String) throws {
        switch self {
        case .entra(let tenants):
            try Self.checkEntra(issuer, claims: claims, configured: configured, tenants: tenants)
        case .google(let domains):
            let schemeless = Self.withoutScheme(configured)
            guard issuer == configured || (schemeless != nil && issuer == schemeless) else {
                throw OIDCError(.issuerMismatch, "the ID Token's \"iss\" is neither the configured issuer nor it without its scheme")
            }
            if let allowed = domains.allowed {
                guard case .string(let hd)? = claims["hd"] else {
                    throw OIDCError(.hostedDomainNotAllowed, "the ID Token has no \"hd\" (a consumer account) and a hosted-domain allow-list is set")
                }
                guard allowed.contains(where: { $0.lowercased() == hd.lowercased() }) else {
                    throw OIDCError(.hostedDomainNotAllowed, "the ID Token's \"hd\" \"\(hd.prefix(64))\" is not on the hosted-domain allow-list")
                }
            }
        case .apple, .keycloak, .okta, .auth0:
            guard issuer == configured else { throw OIDCError(.issuerMismatch, "the ID Token's \"iss\" is not the expected issuer") }
        }
    }

    /// Entra ID: a multi-tenant issuer takes the token's `tid` in place of its alias; a single-tenant one stays exact.
    package static func checkEntra(_ issuer: String, claims: JWTClaims, configured: String, tenants: EntraTenants) throws {
        let tid: String?
        if case .string(let text)? = claims["tid"] { tid = text } else { tid = nil }
        if let parts = entraParts(configured), entraAliases.contains(String(parts.tenant)) {
            guard let tid, isGUID(tid) else {
                throw OIDCError(.tenantNotAllowed, "the ID Token has no \"tid\" tenant GUID, which a multi-tenant Entra ID issuer requires")
            }
            let consumer = tid.lowercased() == EntraTenants.consumerTenant
            if parts.tenant == "consumers", !consumer {
                throw OIDCError(.tenantNotAllowed, "the consumers endpoint issues only for the consumer tenant, not \"\(tid)\"")
            }
            if parts.tenant == "organizations", consumer {
                throw OIDCError(.tenantNotAllowed, "the organizations endpoint does not admit personal accounts (the consumer tenant)")
            }
            guard issuer == "\(parts.prefix)/\(tid)/v2.0" else {
                throw OIDCError(.issuerMismatch, "the ID Token's \"iss\" is not the Entra ID issuer of its own tenant (\"tid\" \(tid))")
            }
        } else {
            guard issuer == configured else { throw OIDCError(.issuerMismatch, "the ID Token's \"iss\" is not the expected issuer") }
        }
        if let allowed = tenants.allowed {
            guard let tid, allowed.contains(where: { $0.lowercased() == tid.lowercased() }) else {
                throw OIDCError(.tenantNotAllowed, "the ID Token's tenant (\"tid\") is not on the tenant allow-list")
            }
        }
    }

    /// `issuer` without its `scheme://`, or `nil` when it has none.
    package static func withoutScheme(_ issuer: String) -> String? {
        let bytes = Array(issuer.utf8)
        guard bytes.count > 3 else { return nil }
        for index in 0..<(bytes.count - 2) where bytes[index] == UInt8(ascii: ":") {
            guard bytes[index + 1] == UInt8(ascii: "/"), bytes[index + 2] == UInt8(ascii: "/"), index > 0 else { return nil }
            return String(decoding: bytes[(index + 3)...], as: UTF8.self)
        }
        return nil
    }

    /// A GUID in its 8-4-4-4-12 hexadecimal form (Entra ID tenant ids), nothing else.
    package static func isGUID(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        guard bytes.count == 36 else { return false }
        for (index, byte) in bytes.enumerated() {
            if [8, 13, 18, 23].contains(index) {
                guard byte == UInt8(ascii: "-") else { return false }
            } else {
                guard (48...57).contains(byte) || (97...102).contains(byte) || (65...70).contains(byte) else { return false }
            }
        }
        return true
    }

    /// Entra ID: an access token for Microsoft Graph carries a `nonce` in its JWS header; Graph alone can
    /// verify it (the signature covers a hashed nonce): refused before any signature check, saying so.
    /// - Throws: ``OIDCError`` `.unverifiableAccessToken`.
    package static func refuseGraphAccessToken(_ header: JOSEHeader) throws {
        if header.members["nonce"] != nil {
            throw OIDCError(
                .unverifiableAccessToken,
                "the token carries a nonce in its JWS header: a Microsoft Graph access token, which only Microsoft Graph can verify (not a third party); request a token for your own API's scope"
            )
        }
    }
}

/// Error codes of the provider profiles.
