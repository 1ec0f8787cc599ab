import VaultCore
import VaultProtocol

/// A credential helper's `get` in one request (`resolve_credential`). Every item it reads is read
/// as the request of its own would read it, with the same access decision and audit record:
/// vault's own item as `get` (`read`), the other helper's as `foreign_get` (`readForeign`).
extension ItemService {
    /// The credential to give for `query`:
    ///
    /// - git: vault's own item (the account's, or without one the service's only plain secret:
    ///   `ambiguous` when it has several), else git-credential-libsecret's (the user's, or without
    ///   one the only user's among the matching items: `ambiguous` when there are several).
    /// - docker: docker-credential-secretservice's newest matching item, else the service's
    ///   first plain secret by account (docker-credential-vault keeps one per server).
    func resolveCredential(_ query: CredentialQuery, by request: ItemRequest) throws -> CredentialResolution {
        switch query.helper {
        case .git:
            if let own = try ownCredential(query, by: request, firstOfSeveral: false) { return own }
            return try foreignCredential(query, pickingOnlyUser: true, by: request)
        case .docker:
            let foreign = try foreignCredential(query, pickingOnlyUser: false, by: request)
            if case .nothing = foreign { return try ownCredential(query, by: request, firstOfSeveral: true) ?? .nothing }
            return foreign
        }
    }

    /// vault's own plain secret for `query`; nil when there is none to give (no item, or one of
    /// another kind). Without an account, the service's plain secrets are listed first (names
    /// only, not audited): their first when `firstOfSeveral`, else `ambiguous` when several.
    private func ownCredential(_ query: CredentialQuery, by request: ItemRequest, firstOfSeveral: Bool) throws -> CredentialResolution? {
        var account = query.account
        if account == nil {
            let accounts = try store.read { try $0.list(service: query.service) }.filter { $0.kind == .secret }.map(\.key.account)
            if accounts.count > 1 && !firstOfSeveral { return .ambiguous(ownItems: true, count: accounts.count) }
            account = accounts.first
        }
        guard let account else { return nil }
        do {
            let item = try read(try ItemKey(service: query.service, account: account), by: request, in: .everyKind)
            return item.info.kind == .secret ? .item(item) : nil
        } catch VaultError.notFound {
            return nil
        }
    }

    /// The other helper's item for `query`. When `pickingOnlyUser` and the attributes leave the
    /// user open, the matching items are listed first (names only, not audited): the only user
    /// among them is read, several are `ambiguous`.
    private func foreignCredential(_ query: CredentialQuery, pickingOnlyUser: Bool, by request: ItemRequest) throws -> CredentialResolution {
        guard var matching = query.foreign else { return .nothing }
        try query.helper.validate(matching, writing: false)
        let user = query.helper.accountAttribute
        if pickingOnlyUser && !matching.keys.contains(user) {
            let users = Set(try foreignItems(query.helper, matching: matching).compactMap { $0.attributes[user] })
            guard users.count == 1, let only = users.first else {
                return users.isEmpty ? .nothing : .ambiguous(ownItems: false, count: users.count)
            }
            matching[user] = .some(only)
        }
        guard let (item, secret) = try readForeign(query.helper, matching: matching, by: request) else { return .nothing }
        return .foreign(item, secret: secret)
    }
}
