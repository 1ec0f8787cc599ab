import VaultClient
import VaultCore

extension GitCredential {
    /// What `get` asks vault for (`resolve_credential`), `service` being this credential's
    /// `itemService()`: the token of the session `link` names, or else vault's own item (the
    /// username as account) and git-credential-libsecret's (`libsecretAttributes`).
    func lookup(service: String, linkedTo link: GitSessionLink?) throws(HelperFailure) -> CredentialLookup {
        if let link {
            return CredentialLookup(helper: .git, service: service, sessionService: link.service, sessionAccount: link.account)
        }
        let username = try checkedUsername()
        return CredentialLookup(helper: .git, service: service, account: username, foreignAttributes: libsecretAttributes(user: username))
    }
}
