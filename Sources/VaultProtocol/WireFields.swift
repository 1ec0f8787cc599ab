import VaultCore

/// The flat field names requests share (docs/protocol.md), and reading them the way every
/// handler needs: a required string is present and non-empty.
enum WireField: String, CodingKey {
    case provider, service, account, url, email, username, password, scope, session
    case apiKey = "api_key"
    case tokenEndpoint = "token_endpoint"
    case clientID = "client_id"
    case clientSecret = "client_secret"
    case deviceEndpoint = "device_endpoint"
    case deviceCode = "device_code"
}

extension KeyedDecodingContainer where Key == WireField {
    func required(_ key: WireField) throws -> String {
        guard let value = try decodeIfPresent(String.self, forKey: key), !value.isEmpty else {
            throw VaultError.invalidInput("missing field '\(key.stringValue)'")
        }
        return value
    }

    func optional(_ key: WireField) throws -> String? {
        try decodeIfPresent(String.self, forKey: key)
    }

    func provider(default fallback: ProviderKind? = nil) throws -> ProviderKind {
        guard let name = try optional(.provider) else {
            if let fallback { return fallback }
            throw VaultError.invalidInput("missing field 'provider'")
        }
        return try ProviderKind(name: name)
    }

    /// A provider's settings from the flat fields: `url` is the revocation endpoint for OAuth 2.0,
    /// the project for Supabase and the emulator for Firebase.
    func settings(for kind: ProviderKind) throws -> ProviderSettings {
        switch kind {
        case .oauth2: .oauth2(try oauth2Settings())
        case .supabase: .supabase(SupabaseSettings(projectURL: try required(.url), apiKey: try required(.apiKey)))
        case .firebase: .firebase(FirebaseSettings(apiKey: try required(.apiKey), emulatorURL: try optional(.url)))
        }
    }

    func oauth2Settings() throws -> OAuth2Settings {
        OAuth2Settings(
            tokenEndpoint: try required(.tokenEndpoint), clientID: try optional(.clientID), clientSecret: try optional(.clientSecret),
            scope: try optional(.scope), revocationEndpoint: try optional(.url))
    }
}

extension KeyedEncodingContainer where Key == WireField {
    mutating func encode(_ settings: ProviderSettings) throws {
        try encode(settings.kind.rawValue, forKey: .provider)
        switch settings {
        case .oauth2(let oauth2):
            try encode(oauth2)
        case .supabase(let supabase):
            try encode(supabase.projectURL, forKey: .url)
            try encode(supabase.apiKey, forKey: .apiKey)
        case .firebase(let firebase):
            try encode(firebase.apiKey, forKey: .apiKey)
            try encodeIfPresent(firebase.emulatorURL, forKey: .url)
        }
    }

    mutating func encode(_ oauth2: OAuth2Settings) throws {
        try encode(oauth2.tokenEndpoint, forKey: .tokenEndpoint)
        try encodeIfPresent(oauth2.clientID, forKey: .clientID)
        try encodeIfPresent(oauth2.clientSecret, forKey: .clientSecret)
        try encodeIfPresent(oauth2.scope, forKey: .scope)
        try encodeIfPresent(oauth2.revocationEndpoint, forKey: .url)
    }
}
