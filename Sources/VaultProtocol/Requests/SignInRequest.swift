import VaultCore

/// `login` and `signup`: a provider's settings, the user's name (`username` for OAuth 2.0,
/// `email` otherwise) and password, and where to keep the session (defaults per provider).
public struct SignInRequest: Codable, Sendable {
    public var provider: ProviderSettings
    public var user: String
    public var password: SecretBytes
    public var service: String?
    public var account: String?

    public init(provider: ProviderSettings, user: String, password: SecretBytes, service: String? = nil, account: String? = nil) {
        self.provider = provider
        self.user = user
        self.password = password
        self.service = service
        self.account = account
    }

    private static func userField(_ kind: ProviderKind) -> WireField { kind == .oauth2 ? .username : .email }

    public init(from decoder: Decoder) throws {
        let container = try decoder.container(keyedBy: WireField.self)
        guard let password = try SecretFields.of(decoder).string(WireField.password.stringValue), !password.isEmpty else {
            throw VaultError.invalidInput("missing field 'password'")
        }
        self.password = password
        let kind = try container.provider()
        provider = try container.settings(for: kind)
        user = try container.required(Self.userField(kind))
        service = try container.optional(.service)
        account = try container.optional(.account)
    }

    public func encode(to encoder: Encoder) throws {
        var container = encoder.container(keyedBy: WireField.self)
        try container.encode(provider)
        try container.encode(user, forKey: Self.userField(provider.kind))
        try container.encodeSecret(password, as: .text, forKey: .password, in: encoder)
        try container.encodeIfPresent(service, forKey: .service)
        try container.encodeIfPresent(account, forKey: .account)
    }
}
