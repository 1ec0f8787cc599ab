import VaultCore

/// The arguments and options several of vaultctl's commands share (`CommandTable.vaultctl`).
extension CommandTable {
    static let item = [
        PositionalSpec("SERVICE", completion: .services, help: "the item's service"),
        PositionalSpec("ACCOUNT", help: "the item's account"),
    ]

    static let profile = PositionalSpec("PROFILE", help: "the AWS profile's name, as in ~/.aws/config")

    static let itemMetadata = [
        OptionSpec("label", value: "LABEL", help: "a label for listings"),
        OptionSpec("comment", value: "TEXT", help: "a comment kept with the item"),
        .flag("raw", help: "keep stdin byte for byte (by default one trailing newline is removed)"),
        .flag("allow-empty", help: "store an empty secret when stdin is empty (refused otherwise)"),
        .flag("confirm", help: "from now on, each read needs an answer from 'vaultctl approve' (unless an allowed program asks)"),
    ]

    static let program = PositionalSpec("EXECUTABLE", completion: .files, help: "the program, or the script an interpreter runs")

    static let url = OptionSpec("url", value: "URL", help: "Supabase: the project's URL; Firebase: an emulator's URL")
    static let anonKey = OptionSpec("anon-key", value: "KEY", help: "Supabase: the project's anon key")
    static let apiKey = OptionSpec("api-key", value: "KEY", help: "Firebase: the Web API key")
    static let email = OptionSpec("email", value: "EMAIL", help: "Supabase, Firebase: the account's email")
    static let tokenEndpoint = OptionSpec("token-endpoint", value: "URL", help: "OAuth 2.0: the token endpoint")
    static let clientID = OptionSpec("client-id", value: "ID", help: "OAuth 2.0: the client's id")

    // Options whose values handlers read typed (`OptionValue`), declared once here.
    static let minTTL = OptionSpec("min-ttl", value: "DURATION", kind: .duration(allowsZero: true),
                                   help: "refresh first when the token expires within this: 60, 90s, 5m (default 60s)")
    static let outMode = OptionSpec("mode", value: "MODE", kind: .fileMode, help: "OUT's permissions in octal (default 0600)")
    static let importProvider = OptionSpec("provider", value: "PROVIDER", choices: ProviderKind.allCases.map(\.rawValue),
                                           help: "the provider, when the JSON does not say")
    static let auditSince = OptionSpec("since", value: "DURATION", kind: .duration(allowsZero: false), help: "only records of this last while: 30m, 2h, 7d")
    static let migrateTarget = OptionSpec("to", value: "STORE", choices: StoreKind.persistent.map(\.rawValue), help: "the store to move to")
    static let minPasswordLength = OptionSpec("min-password-length", value: "N", kind: .count(1...1024),
                                              help: "refuse a shorter password before sending anything (default 6)")

    /// login's and signup's options.
    static let signIn = [
        tokenEndpoint,
        OptionSpec("username", value: "NAME", help: "OAuth 2.0 password grant: the user"),
        clientID,
        OptionSpec("client-secret-file", value: "FILE", completion: .files, help: "OAuth 2.0: a file holding the client secret (never the command line)"),
        OptionSpec("scope", value: "SCOPE", help: "OAuth 2.0: the scope to ask for"),
        OptionSpec("service", value: "NAME", help: "the service to keep the session under (Supabase's default: the project's host)"),
        OptionSpec("account", value: "NAME", help: "the session's account (default: the email, the user, or 'default' with --device)"),
        url, anonKey, apiKey, email,
        minPasswordLength,
        OptionSpec("revocation-endpoint", value: "URL", help: "OAuth 2.0: where logout revokes the session (RFC 7009)"),
        OptionSpec("device-endpoint", value: "URL", help: "OAuth 2.0 with --device: the device authorization endpoint"),
        .flag("device", help: "OAuth 2.0: sign in with a code approved on another device (RFC 8628)"),
    ]
}
