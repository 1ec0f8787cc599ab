/// What addresses an item, as in the Keychain's generic passwords: a service and an account.
///
/// Both are non-empty UTF-8 strings of at most `ItemLimits.maxNameBytes` bytes with no control
/// characters (they show up in listings and terminals).
public struct ItemKey: Hashable, Sendable, Comparable, CustomStringConvertible {
    public let service: String
    public let account: String

    /// Validates both parts; throws `VaultError.invalidInput` naming the problem.
    public init(service: String, account: String) throws {
        try ItemKey.validate(service, field: "service")
        try ItemKey.validate(account, field: "account")
        self.service = service
        self.account = account
    }

    public static func validate(_ value: String, field: String) throws {
        if value.isEmpty { throw VaultError.invalidInput("\(field) must not be empty") }
        if value.utf8.count > ItemLimits.maxNameBytes {
            throw VaultError.invalidInput("\(field) is \(value.utf8.count) bytes; the limit is \(ItemLimits.maxNameBytes)")
        }
        if value.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) {
            throw VaultError.invalidInput("\(field) must not contain control characters (newline, tab, NUL, ...)")
        }
    }

    public static func < (lhs: ItemKey, rhs: ItemKey) -> Bool {
        (lhs.service, lhs.account) < (rhs.service, rhs.account)
    }

    public var description: String { "service '\(service)' account '\(account)'" }
}
