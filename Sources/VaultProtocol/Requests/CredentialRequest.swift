/// `resolve_credential`: what a credential helper knows of the credential it is asked for, so
/// that vaultd answers with the one to use in one request (docs/protocol.md, "Credential
/// helpers"). `helper` (`git` or `docker`) says whose rules apply and which other helper's items
/// (`attributes`, in its schema) stand in for vault's own item (`service`, and `account` when
/// the helper was given a username). A linked session (`session_service`, `session_account`) is
/// answered with its token and nothing else is looked up.
public struct CredentialRequest: Codable, Sendable, Equatable {
    public var helper: String
    public var service: String
    public var account: String?
    public var attributes: [String: String?]?
    public var sessionService: String?
    public var sessionAccount: String?

    enum CodingKeys: String, CodingKey {
        case helper, service, account, attributes
        case sessionService = "session_service"
        case sessionAccount = "session_account"
    }

    public init(
        helper: String, service: String, account: String? = nil, attributes: [String: String?]? = nil,
        sessionService: String? = nil, sessionAccount: String? = nil
    ) {
        self.helper = helper
        self.service = service
        self.account = account
        self.attributes = attributes
        self.sessionService = sessionService
        self.sessionAccount = sessionAccount
    }
}
