/// The sign-in providers vault keeps sessions for. The raw value is the name on the command line
/// (`vaultctl login oauth2`), on the wire (`provider`) and in stored sessions.
public enum ProviderKind: String, Sendable, CaseIterable, Codable {
    /// Any OAuth 2.0 authorization server (RFC 6749): password grant, device grant, refresh, revocation.
    case oauth2
    /// Supabase Auth (GoTrue) at `{project URL}/auth/v1`.
    case supabase
    /// Firebase Auth: identitytoolkit and securetoken.
    case firebase

    /// "oauth2, supabase or firebase", for error messages.
    public static var names: String {
        let all = allCases.map(\.rawValue)
        return all.dropLast().joined(separator: ", ") + " or " + all.last!
    }

    /// Parses a provider name; throws `.invalidInput` naming the supported ones.
    public init(name: String) throws {
        guard let kind = ProviderKind(rawValue: name) else {
            throw VaultError.invalidInput("provider '\(name.replacingControlCharacters())' is not supported; use \(ProviderKind.names)")
        }
        self = kind
    }
}
