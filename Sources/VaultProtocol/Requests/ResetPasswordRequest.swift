import VaultCore

/// `reset_password`: Supabase (the default) or Firebase, and the email to send the reset to.
public struct ResetPasswordRequest: Codable, Sendable, Equatable {
    public var provider: ProviderSettings
    public var email: String

    public init(provider: ProviderSettings, email: String) {
        self.provider = provider
        self.email = email
    }

    public init(from decoder: Decoder) throws {
        let container = try decoder.container(keyedBy: WireField.self)
        let kind = try container.provider(default: .supabase)
        guard kind != .oauth2 else {
            throw VaultError.invalidInput("OAuth 2.0 has no standard password reset; reset it with the provider")
        }
        provider = try container.settings(for: kind)
        email = try container.required(.email)
    }

    public func encode(to encoder: Encoder) throws {
        var container = encoder.container(keyedBy: WireField.self)
        try container.encode(provider)
        try container.encode(email, forKey: .email)
    }
}
