import VaultCore

/// What a credential helper knows of the credential it is asked for (`resolveCredential`):
/// which helper asks (`helper`: git or docker, whose other helper keeps items of the schema of
/// the same name), vault's own item for it (`service`, and `account` when a username was
/// given), the other helper's key attributes for it (nil: none to look for), and the session
/// the credential's host is linked to (`sessionService`, and `sessionAccount` when the service
/// has several; nil: none, else nothing but its token is looked up).
public struct CredentialLookup: Sendable, Equatable {
    public var helper: ForeignSchema
    public var service: String
    public var account: String?
    public var foreignAttributes: [String: String?]?
    public var sessionService: String?
    public var sessionAccount: String?

    public init(
        helper: ForeignSchema, service: String, account: String? = nil, foreignAttributes: [String: String?]? = nil,
        sessionService: String? = nil, sessionAccount: String? = nil
    ) {
        self.helper = helper
        self.service = service
        self.account = account
        self.foreignAttributes = foreignAttributes
        self.sessionService = sessionService
        self.sessionAccount = sessionAccount
    }
}
