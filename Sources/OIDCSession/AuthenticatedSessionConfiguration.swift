import OIDC

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension AuthenticatedSession {
    /// Settings of an ``AuthenticatedSession``, given when it is made; every default is the safe one.
    ///
    /// A `nil` transport, clock, observer or ID Token policy takes the maker's own: the client's for
    /// `OIDCClient.session(tokens:configuration:)`, the source's client's for
    /// ``AuthenticatedSession/clientCredentials(_:configuration:)``, and otherwise a `LibSSLTransport`, the
    /// system clock, no observer and refused ID Tokens.
    public struct Configuration: Sendable {
        /// The only origins (scheme, host and port, compared exactly) that receive the access token.
        /// Each must be `https`, or `http` on a loopback host (``/OIDCCore/SecureURLPolicy``).
        public var allowedOrigins: [URL]
        /// What sends the requests; the session never lets it follow a redirect with a token.
        public var transport: (any HTTPTransport)?
        /// Where the tokens live between requests and runs; `nil`: memory only.
        public var store: (any TokenStore)?
        /// What to do with an ID Token in a refresh answer (see ``/OIDC/RefreshedIDTokenPolicy``).
        public var refreshedIDTokens: RefreshedIDTokenPolicy?
        /// Renew before sending when the access token expires within this many seconds, at most half the
        /// token's lifetime; `nil`: only on a 401. Default 30.
        public var proactiveRefreshMargin: TimeInterval?
        /// Seconds after a failed refresh during which no new one starts (default 10; negative counts as 0).
        public var refreshBackoff: TimeInterval
        /// The time source for expiry and back-off.
        public var clock: (@Sendable () -> Date)?
        /// Receives an ``/OIDCCore/OIDCEvent`` per refresh, per wait for another refresh, per logout and per DPoP
        /// nonce retry.
        public var observer: (any OIDCObserver)?
        /// The DPoP key that proves possession of DPoP-bound tokens (RFC 9449 §7); `nil`: the refresher's
        /// client's binding, if it has one.
        public var dpop: DPoPBinding?

        /// A configuration for calls to `allowedOrigins`; the other settings take their defaults.
        public init(
            allowedOrigins: [URL], transport: (any HTTPTransport)? = nil, store: (any TokenStore)? = nil,
            refreshedIDTokens: RefreshedIDTokenPolicy? = nil, proactiveRefreshMargin: TimeInterval? = 30,
            refreshBackoff: TimeInterval = 10, clock: (@Sendable () -> Date)? = nil,
            observer: (any OIDCObserver)? = nil, dpop: DPoPBinding? = nil
        ) {
            self.allowedOrigins = allowedOrigins
            self.transport = transport
            self.store = store
            self.refreshedIDTokens = refreshedIDTokens
            self.proactiveRefreshMargin = proactiveRefreshMargin
            self.refreshBackoff = refreshBackoff
            self.clock = clock
            self.observer = observer
            self.dpop = dpop
        }

        /// This configuration with every `nil` default taken from a maker (a client, a source's client).
        func filled(
            transport: any HTTPTransport, clock: @escaping @Sendable () -> Date, observer: (any OIDCObserver)?,
            refreshedIDTokens: RefreshedIDTokenPolicy
        ) -> Configuration {
            var filled = self
            filled.transport = self.transport ?? transport
            filled.clock = self.clock ?? clock
            filled.observer = self.observer ?? observer
            filled.refreshedIDTokens = self.refreshedIDTokens ?? refreshedIDTokens
            return filled
        }
    }
}
