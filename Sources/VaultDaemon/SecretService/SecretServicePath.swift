import VaultCore

/// The object paths vaultd exports. An item's path is derived from its key alone (hex of the
/// service and the account's UTF-8), so it is the same across restarts and in every vaultd on
/// the same vault, and a path read back names its key without a look-up.
enum SecretServicePath {
    static let service = "/org/freedesktop/secrets"
    /// The one collection: every item of the vault.
    static let collection = service + "/collection/login"
    static let aliasPrefix = service + "/aliases/"
    /// The aliases clients read (`ReadAlias`) and the collection is reachable under.
    static let aliases: Set<String> = ["default", "login"]
    static let sessionPrefix = service + "/session/"
    static let promptPrefix = service + "/prompt/"
    /// "No object" (no prompt needed, no such alias).
    static let none = "/"

    static func isCollection(_ path: String) -> Bool {
        path == collection || (path.hasPrefix(aliasPrefix) && aliases.contains(String(path.dropFirst(aliasPrefix.count))))
    }

    /// Whether `path` is an object Lock and Unlock act on: the collection (under any of its
    /// paths) or a well-formed item path.
    static func isLockable(_ path: String) -> Bool {
        isCollection(path) || key(ofItem: path) != nil
    }

    static func item(_ key: ItemKey) -> String {
        collection + "/i" + hex(key.service) + "_" + hex(key.account)
    }

    /// The key an item path names, or nil when `path` is no well-formed item path.
    static func key(ofItem path: String) -> ItemKey? {
        let prefix = collection + "/i"
        guard path.hasPrefix(prefix) else { return nil }
        let parts = path.dropFirst(prefix.count).split(separator: "_", omittingEmptySubsequences: false)
        guard parts.count == 2, let service = unhex(parts[0]), let account = unhex(parts[1]) else { return nil }
        return try? ItemKey(service: service, account: account)
    }

    private static let digits = Array("0123456789abcdef".utf8)

    private static func hex(_ text: String) -> String { text.utf8.lowercaseHex }

    /// Lowercase hex of valid UTF-8 only (the form `hex` writes), at most the longest name.
    private static func unhex(_ text: Substring) -> String? {
        let characters = Array(text.utf8)
        guard characters.count % 2 == 0, characters.count <= 2 * ItemLimits.maxNameBytes else { return nil }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(characters.count / 2)
        var index = 0
        while index < characters.count {
            guard let high = digits.firstIndex(of: characters[index]), let low = digits.firstIndex(of: characters[index + 1]) else { return nil }
            bytes.append(UInt8(high << 4 | low))
            index += 2
        }
        return String(validating: bytes, as: UTF8.self)
    }
}
