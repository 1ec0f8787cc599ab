import VaultCore

/// How Secret Service items map to vault's keys when other tools write the same keychain.
///
/// An item belongs to vault's part of the keychain when it has a `service` attribute (the
/// convention of secret-tool, Python keyring and go-keyring); with a valid `username` it is
/// addressed by that pair whatever other attributes it carries. Several items under one key are
/// duplicates (Python keyring writes its own, with an extra `application` attribute): the newest
/// is read, all are written and deleted. An item with a `service` attribute but no valid key is
/// unaddressable: listed, counted, and reported by `migrate`, never silently skipped. Items with
/// no `service` attribute belong to other applications (browsers, Wi-Fi) and are not shown.
extension SecretServiceStore {
    /// Newest first: by modification time, then creation time, then the provider's creation
    /// order (timestamps have one-second resolution, and two tools may write within a second).
    static func newestFirst(_ a: LibSecretItem, _ b: LibSecretItem) -> Bool {
        if a.modified != b.modified { return a.modified > b.modified }
        if a.created != b.created { return a.created > b.created }
        let (pathA, pathB) = (a.objectPath, b.objectPath)
        return pathA.utf8.count != pathB.utf8.count ? pathA.utf8.count > pathB.utf8.count : pathA > pathB
    }

    /// What a walk over items found: one entry per key (its items newest first), and the items
    /// of vault's part of the keychain that no key can address.
    struct Census {
        var keys: [ItemKey: [LibSecretItem]] = [:]
        var unaddressable: [UnaddressableItem] = []

        var duplicateCount: Int { keys.values.reduce(0) { $0 + $1.count - 1 } }
        var itemCount: Int { keys.values.reduce(0) { $0 + $1.count } + unaddressable.count }
    }

    static func census(of items: [LibSecretItem]) -> Census {
        var census = Census()
        for item in items {
            let attributes = item.attributes ?? [:]
            guard let service = attributes[Attribute.service] else { continue }
            let account = attributes[Attribute.account]
            if let problem = problem(service: service, account: account) {
                census.unaddressable.append(UnaddressableItem(
                    service: service, account: account, label: item.label ?? "",
                    reason: problem + "; vault cannot read, change or move it (the tool that wrote it still can; "
                        + "'secret-tool search service NAME' shows it): store it again under a valid account and delete this one",
                    modified: item.modified * 1000))
                continue
            }
            guard let account, let key = try? ItemKey(service: service, account: account) else { continue }
            census.keys[key, default: []].append(item)
        }
        for key in census.keys.keys { census.keys[key]?.sort(by: newestFirst) }
        census.unaddressable.sort { ($0.service, $0.account ?? "") < ($1.service, $1.account ?? "") }
        return census
    }

    /// Why `service`/`account` is no key, or nil.
    private static func problem(service: String, account: String?) -> String? {
        guard let account else { return "it has no 'username' attribute (vault's account)" }
        return ItemKey.problem(with: service, field: "service") ?? ItemKey.problem(with: account, field: "account")
    }
}
