import VaultCore

/// The one table of providers: `ProviderKind` to the type that implements it. Adding a provider
/// is a case in `ProviderKind`, a type conforming to `SignInProvider`, and a line here (the
/// switch is exhaustive, so the compiler points at it).
public enum ProviderRegistry {
    public static func type(of kind: ProviderKind) -> any SignInProvider.Type {
        switch kind {
        case .oauth2: OAuth2Provider.self
        case .supabase: SupabaseProvider.self
        case .firebase: FirebaseProvider.self
        }
    }

    /// The provider a sign-in request's settings name.
    public static func provider(for settings: ProviderSettings, transport: any HTTPTransport) throws -> any SignInProvider {
        try type(of: settings.kind).init(settings: settings, transport: transport)
    }

    /// The provider that refreshes and signs out a stored session.
    public static func provider(for record: SessionRecord, transport: any HTTPTransport) throws -> any SignInProvider {
        try type(of: record.provider).init(record: record, transport: transport)
    }

    /// The error a provider's settings initializer throws when handed another provider's settings.
    static func mismatch(_ settings: ProviderSettings, expected: ProviderKind) -> VaultError {
        .internal("\(expected.rawValue) provider built from \(settings.kind.rawValue) settings")
    }
}
