import JOSE

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension IDTokenValidator {
    /// What an ``IDTokenValidator`` checks, as a plain value whose every default is the safe one.
    ///
    /// Each way to switch a check off is an explicit flag named `insecure…`.
    public struct Configuration: Sendable, CustomStringConvertible {
        /// The issuer `iss` must equal exactly.
        public var issuer: String
        /// The client id `aud` must contain (and `azp` must equal when present).
        public var clientID: String
        /// The algorithms accepted. `nil` (the default) means ``providerAlgorithms``, or `RS256` when those are unknown.
        /// In every case the key must admit the algorithm too.
        public var allowedAlgorithms: Set<JWSAlgorithm>?
        /// The provider's `id_token_signing_alg_values_supported`, when known (from discovery).
        public var providerAlgorithms: Set<JWSAlgorithm>?
        /// The client secret (UTF-8), the only key HS256/384/512 ID Tokens are verified with.
        public var clientSecret: String?
        /// The current time; inject a fixed clock in tests.
        public var clock: @Sendable () -> Date
        /// Allowed clock skew for `exp`, `iat`, `nbf` and `auth_time`, in seconds (default 60); NaN or
        /// negative counts as 0, above one day as one day (the rule of JOSE's `JWTValidationPolicy.leeway`).
        public var leeway: TimeInterval
        /// Reject tokens whose `iat` is older than this many seconds (default `nil`: no limit).
        public var maximumTokenAge: TimeInterval?
        /// The smallest RSA modulus accepted (default 2048).
        public var minimumRSAKeyBits: Int
        /// Input limits.
        public var limits: JOSELimits
        /// The client's decryption keys, for encrypted ID Tokens (RFC 7519 §5.2 nested JWTs: the signed
        /// ID Token inside is then validated as any other). Default: none, and an encrypted ID Token is refused.
        public var decryptionKeys: JWEDecryptionKeys = .none
        /// What the client registered as `id_token_encrypted_response_alg`/`_enc`: when set, a plain
        /// ID Token is refused (``OIDCCore/OIDCError/Code/unencryptedIDToken``) and the JWE must use exactly these
        /// algorithms. `nil` (default): an ID Token may arrive signed, or encrypted to one of ``decryptionKeys``.
        public var idTokenEncryption: ResponseEncryption? = nil
        /// DANGER: do not verify the signature. For tokens already verified by other means only.
        public var insecureSkipSignatureCheck: Bool
        /// DANGER: do not compare `iss` with ``issuer``.
        public var insecureSkipIssuerCheck: Bool
        /// DANGER: do not check `aud`/`azp` against ``clientID``.
        public var insecureSkipClientIDCheck: Bool
        /// DANGER: accept expired tokens (and tokens without `exp`).
        public var insecureSkipExpiryCheck: Bool
        /// The provider profile whose documented departures are accepted (``/OIDCCore/ProviderProfile``): its `iss`
        /// rule replaces the exact comparison, its narrowings (tenants, hosted domains) are added, and its
        /// claim forms are read. `nil` (default): none, every rule to the letter.
        public var profile: ProviderProfile? = nil
        /// Receives one ``/OIDCCore/OIDCEvent/Kind/idTokenValidation`` event per token, accepted or refused with its code.
        /// `nil` (default): none.
        public var observer: (any OIDCObserver)? = nil

        /// Creates a configuration; the `insecure…` flags are all off.
        public init(
            issuer: String, clientID: String, allowedAlgorithms: Set<JWSAlgorithm>? = nil,
            providerAlgorithms: Set<JWSAlgorithm>? = nil, clientSecret: String? = nil,
            clock: @escaping @Sendable () -> Date = { Date() }, leeway: TimeInterval = 60,
            maximumTokenAge: TimeInterval? = nil, minimumRSAKeyBits: Int = 2048, limits: JOSELimits = .default
        ) {
            self.issuer = issuer
            self.clientID = clientID
            self.allowedAlgorithms = allowedAlgorithms
            self.providerAlgorithms = providerAlgorithms
            self.clientSecret = clientSecret
            self.clock = clock
            self.leeway = leeway
            self.maximumTokenAge = maximumTokenAge
            self.minimumRSAKeyBits = minimumRSAKeyBits
            self.limits = limits
            self.insecureSkipSignatureCheck = false
            self.insecureSkipIssuerCheck = false
            self.insecureSkipClientIDCheck = false
            self.insecureSkipExpiryCheck = false
        }

        /// A configuration for a discovered provider: its issuer and its advertised algorithms.
        package init(
            metadata: ProviderMetadata, clientID: String, clientSecret: String? = nil,
            clock: @escaping @Sendable () -> Date = { Date() }, leeway: TimeInterval = 60
        ) {
            self.init(
                issuer: metadata.issuer, clientID: clientID, providerAlgorithms: metadata.idTokenSigningAlgorithms,
                clientSecret: clientSecret, clock: clock, leeway: leeway)
        }

        /// The algorithms actually accepted: ``allowedAlgorithms``, else ``providerAlgorithms``, else `RS256`.
        package var effectiveAlgorithms: Set<JWSAlgorithm> {
            allowedAlgorithms ?? providerAlgorithms ?? [.rs256]
        }

        /// The issuer, client id and settings; the client secret is shown only as present or absent.
        public var description: String {
            var flags: [String] = []
            if insecureSkipSignatureCheck { flags.append("INSECURE-skip-signature") }
            if insecureSkipIssuerCheck { flags.append("INSECURE-skip-issuer") }
            if insecureSkipClientIDCheck { flags.append("INSECURE-skip-client-id") }
            if insecureSkipExpiryCheck { flags.append("INSECURE-skip-expiry") }
            let algorithms = effectiveAlgorithms.map(\.rawValue).sorted().joined(separator: ",")
            return "IDTokenValidator.Configuration(issuer: \(issuer), clientID: \(clientID), algorithms: \(algorithms), "
                + "clientSecret: \(clientSecret == nil ? "none" : "set"), leeway: \(leeway.wholeText)s"
                + (profile.map { ", profile: \($0)" } ?? "")
                + (flags.isEmpty ? ")" : ", " + flags.joined(separator: ", ") + ")")
        }
    }
}
