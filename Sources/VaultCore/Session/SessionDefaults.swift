/// Settings for a session being imported, used where its JSON has none (a Supabase session
/// object carries only its tokens and user).
public struct SessionDefaults: Sendable, Equatable {
    public var provider: ProviderKind?
    /// Supabase: the project URL; Firebase: an emulator.
    public var url: String?
    public var apiKey: String?
    public var tokenEndpoint: String?
    public var clientID: String?

    public init(provider: ProviderKind? = nil, url: String? = nil, apiKey: String? = nil, tokenEndpoint: String? = nil, clientID: String? = nil) {
        self.provider = provider
        self.url = url
        self.apiKey = apiKey
        self.tokenEndpoint = tokenEndpoint
        self.clientID = clientID
    }
}
