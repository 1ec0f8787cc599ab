import VaultClient
import VaultCore

/// One element of `vaultctl list --json`: an item as docs/protocol.md shows it, or an item no
/// key can address, with `kind` "unaddressable", `account` null when it has none, and `reason`.
enum ListEntry: Encodable {
    case item(ItemMetadata)
    case unaddressable(UnaddressableItem)

    private enum Key: String, CodingKey { case service, account, label, kind, modified, reason }

    func encode(to encoder: Encoder) throws {
        switch self {
        case .item(let item):
            try item.encode(to: encoder)
        case .unaddressable(let item):
            var container = encoder.container(keyedBy: Key.self)
            try container.encode(item.service, forKey: .service)
            if let account = item.account { try container.encode(account, forKey: .account) } else { try container.encodeNil(forKey: .account) }
            try container.encode(item.label, forKey: .label)
            try container.encode("unaddressable", forKey: .kind)
            try container.encode(Timestamp.rfc3339(milliseconds: item.modified), forKey: .modified)
            try container.encode(item.reason, forKey: .reason)
        }
    }
}
