import VaultCore

/// `import_session`: a session obtained elsewhere, as JSON text (a stored session, or an OAuth 2.0
/// token response), with settings that fill in what the JSON lacks (a Supabase session object
/// carries only its tokens and user).
public struct SessionImport: Codable, Sendable {
    public var service: String
    public var account: String
    /// The JSON text; as confidential as the tokens in it.
    public var session: SecretBytes
    public var defaults: SessionDefaults

    public init(service: String, account: String, session: SecretBytes, defaults: SessionDefaults = SessionDefaults()) {
        self.service = service
        self.account = account
        self.session = session
        self.defaults = defaults
    }

    public init(from decoder: Decoder) throws {
        let container = try decoder.container(keyedBy: WireField.self)
        service = try container.decode(String.self, forKey: .service)
        account = try container.decode(String.self, forKey: .account)
        guard let json = try SecretFields.of(decoder).string(WireField.session.stringValue) else {
            throw VaultError.invalidInput("import_session needs 'session' (the session as JSON text)")
        }
        session = json
        defaults = SessionDefaults(
            provider: try container.optional(.provider).map(ProviderKind.init(name:)), url: try container.optional(.url),
            apiKey: try container.optional(.apiKey), tokenEndpoint: try container.optional(.tokenEndpoint),
            clientID: try container.optional(.clientID))
    }

    public func encode(to encoder: Encoder) throws {
        var container = encoder.container(keyedBy: WireField.self)
        try container.encode(service, forKey: .service)
        try container.encode(account, forKey: .account)
        try container.encodeSecret(session, as: .text, forKey: .session, in: encoder)
        try container.encodeIfPresent(defaults.provider?.rawValue, forKey: .provider)
        try container.encodeIfPresent(defaults.url, forKey: .url)
        try container.encodeIfPresent(defaults.apiKey, forKey: .apiKey)
        try container.encodeIfPresent(defaults.tokenEndpoint, forKey: .tokenEndpoint)
        try container.encodeIfPresent(defaults.clientID, forKey: .clientID)
    }
}
