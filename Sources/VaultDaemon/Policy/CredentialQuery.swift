import VaultCore

/// What a credential helper asks vaultd for (`resolve_credential`), checked: which helper asks
/// (`helper`, whose other helper's items are those of the schema of the same name), vault's own
/// item for the credential (`service`, and `account` when the helper was given a username), and
/// the other helper's key attributes for it (nil: none to look for).
struct CredentialQuery: Sendable, Equatable {
    var helper: ForeignSchema
    var service: String
    var account: String?
    var foreign: [String: String?]?

    /// Checks the names as a request naming them is checked: a service and account vault can
    /// keep, not vault's own records'. The attributes are checked where they are used
    /// (`ItemService.resolveCredential`): a credential found before they are needed is given whatever they hold.
    init(helper: ForeignSchema, service: String, account: String?, foreign: [String: String?]?) throws {
        try ItemKey.validate(service, field: "service")
        try ItemKey.checkAddressable(service)
        if let account { try ItemKey.validate(account, field: "account") }
        self.helper = helper
        self.service = service
        self.account = account
        self.foreign = foreign
    }

    /// The helper named `name` on the wire: `git` or `docker`.
    static func helper(named name: String) throws -> ForeignSchema {
        guard let helper = ForeignSchema(rawValue: name) else {
            throw VaultError.invalidInput(
                "unknown helper '\(String(name.prefix(40)).replacingControlCharacters())'; known: \(ForeignSchema.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        return helper
    }
}
