import OIDC

/// Where a session keeps its tokens between requests and between runs.
public protocol TokenStore: Sendable {
    /// Saves the tokens, replacing any saved before.
    func save(_ tokens: TokenResponse) async throws
    /// The last saved tokens, or `nil`.
    func load() async throws -> TokenResponse?
    /// Forgets the tokens.
    func clear() async throws
}

/// Tokens in memory only: gone with the process.
public actor InMemoryTokenStore: TokenStore {
    private var tokens: TokenResponse?

    /// An empty store, or one holding `tokens`.
    public init(_ tokens: TokenResponse? = nil) { self.tokens = tokens }
    /// Saves the tokens.
    public func save(_ tokens: TokenResponse) { self.tokens = tokens }
    /// The saved tokens.
    public func load() -> TokenResponse? { tokens }
    /// Forgets the tokens.
    public func clear() { tokens = nil }
}
