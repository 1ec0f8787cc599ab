import VaultCore
import VaultProtocol

/// get, add, set, delete, list.
extension RequestDispatcher {
    func get(_ name: ItemName, _ asking: ItemRequest) throws -> ResultBody {
        let item = try items.read(try ItemKey(addressable: name), by: asking, in: .everyKind)
        return ResultBody(item: ItemBody(item.info, secret: item.secret))
    }

    func write(_ write: ItemWrite, replacing: Bool, _ asking: ItemRequest) throws -> ResultBody {
        let key = try ItemKey(addressable: ItemName(service: write.service, account: write.account))
        let info = try items.write(
            key, secret: write.secret, changes: ItemChanges(label: write.label, comment: write.comment, kind: try Self.writableKind(write.kind)),
            replacing: replacing, confirm: write.confirm == true, by: asking)
        return ResultBody(item: ItemBody(info, secret: nil))
    }

    /// The kinds `add` and `set` may give an item: `secret` and `aws`. Sign-in sessions are made
    /// only by login, device_poll and import_session, which check what they store. Absent: a new
    /// item is a `secret`, an existing one keeps its kind.
    static func writableKind(_ text: String?) throws -> ItemKind? {
        guard let text else { return nil }
        switch ItemKind(rawValue: text) {
        case .secret?: return .secret
        case .aws?: return .aws
        case .session?: throw VaultError.invalidInput("kind 'session' cannot be written with add or set: sign in with login, or use import_session")
        case .access?: throw VaultError.invalidInput("kind 'access' is vault's own (access rules): use allow, disallow and --confirm")
        case nil: throw VaultError.invalidInput("unknown kind '\(String(text.prefix(40)).replacingControlCharacters())': add and set take 'secret' or 'aws'")
        }
    }

    /// Removes the item and its access rules.
    func delete(_ name: ItemName, _ asking: ItemRequest) throws -> ResultBody {
        try items.delete(try ItemKey(addressable: name), by: asking, in: .everyKind)
        return ResultBody()
    }

    /// Everything at once without `limit` (as before pages existed); with it, one page: at most
    /// `limit` items and about `ListRequest.pageBytes` on the wire, `next` when more remain. The
    /// unaddressable items come with the first page.
    func list(_ filter: ListRequest) throws -> ResultBody {
        if let service = filter.service { try ItemKey.validate(service, field: "service") }
        let after = try filter.after.map(ListPageToken.key)
        guard filter.limit != nil || after != nil else {
            let (items, unaddressable) = try store.read { store in
                (try store.list(service: filter.service), try store.unaddressable(service: filter.service))
            }
            // vault's own items (access rules, the audit key) are not listed.
            var result = ResultBody(items: items.filter { $0.kind != .access }.map(describe))
            if !unaddressable.isEmpty { result.unaddressable = unaddressable.map(UnaddressableBody.init) }
            return result
        }
        let limit = filter.limit ?? ListRequest.defaultLimit
        guard (1...ListRequest.maxLimit).contains(limit) else {
            throw VaultError.invalidInput("'limit' must be 1 to \(ListRequest.maxLimit), got \(limit)")
        }
        // One more than the page, to know whether another follows.
        let (items, unaddressable) = try store.read { store in
            (try store.list(service: filter.service, after: after, limit: limit + 1), after == nil ? try store.unaddressable(service: filter.service) : [])
        }
        var page: [ItemBody] = []
        var bytes = 0
        var examined = 0
        for info in items.prefix(limit) {
            // vault's own items are skipped, but count as examined for the page token.
            if info.kind == .access {
                examined += 1
                continue
            }
            bytes += Self.wireBound(info)
            if bytes > ListRequest.pageBytes && !page.isEmpty { break }
            page.append(describe(info))
            examined += 1
        }
        var result = ResultBody(items: page)
        if examined < items.count { result.next = ListPageToken.token(after: items[examined - 1].key) }
        if !unaddressable.isEmpty { result.unaddressable = unaddressable.map(UnaddressableBody.init) }
        return result
    }

    /// The most bytes `info` can take in a listing: names and label with every character escaped
    /// (a quote or backslash doubles), the comment with every byte a \u escape, the rest fixed.
    static func wireBound(_ info: ItemInfo) -> Int {
        2 * (info.key.service.utf8.count + info.key.account.utf8.count + info.label.utf8.count) + 6 * info.comment.utf8.count + 256
    }
}

extension ItemKey {
    init(_ name: ItemName) throws {
        try self.init(service: name.service, account: name.account)
    }

    /// A key a request may name: not one of vault's own items (`ItemKey.reservedServices`), nor
    /// a remote secret's name (`kv://REMOTE`, which the `kv_` operations address).
    init(addressable name: ItemName) throws {
        try self.init(name)
        try Self.checkAddressable(service)
    }

    static func checkAddressable(_ service: String) throws {
        if reservedServices.contains(service) {
            throw VaultError.invalidInput("service '\(service)' is vault's own (access rules, the audit key, remotes): use another service name")
        }
        if service.hasPrefix(remoteScheme) {
            throw VaultError.invalidInput("service '\(service.replacingControlCharacters())' names a remote secret: read it with 'vaultctl read \(remoteScheme)REMOTE/PATH', or use another service name")
        }
    }
}

extension ItemBody {
    init(_ info: ItemInfo, secret: SecretBytes?) {
        self.init(
            service: info.key.service, account: info.key.account, label: info.label, comment: info.comment,
            kind: info.kind.rawValue, created: Timestamp.rfc3339(milliseconds: info.created),
            modified: Timestamp.rfc3339(milliseconds: info.modified), secret: secret)
        if info.duplicates > 0 { duplicates = info.duplicates }
    }
}

extension UnaddressableBody {
    init(_ item: UnaddressableItem) {
        self.init(service: item.service, account: item.account, label: item.label, reason: item.reason,
                  modified: Timestamp.rfc3339(milliseconds: item.modified))
    }
}
