/// Where and how to reach one provider: what a sign-in needs besides the user's credentials, and
/// what a stored session needs to be refreshed and revoked.
public enum ProviderSettings: Sendable, Equatable {
    case oauth2(OAuth2Settings)
    case supabase(SupabaseSettings)
    case firebase(FirebaseSettings)

    public var kind: ProviderKind {
        switch self {
        case .oauth2: .oauth2
        case .supabase: .supabase
        case .firebase: .firebase
        }
    }
}
