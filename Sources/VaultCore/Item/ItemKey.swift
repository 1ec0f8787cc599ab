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
        if let problem = problem(with: value, field: field) { throw VaultError.invalidInput(problem) }
    }

    /// What makes `value` unusable as the `field` of a key ("account must not be empty"), or nil.
    public static func problem(with value: String, field: String) -> String? {
        if value.isEmpty { return "\(field) must not be empty" }
        if value.utf8.count > ItemLimits.maxNameBytes {
            return "\(field) is \(value.utf8.count) bytes; the limit is \(ItemLimits.maxNameBytes)"
        }
        if value.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) {
            return "\(field) must not contain control characters (newline, tab, NUL, ...)"
        }
        return nil
    }

    public static func < (lhs: ItemKey, rhs: ItemKey) -> Bool {
        (lhs.service, lhs.account) < (rhs.service, rhs.account)
    }

    public var description: String { "service '\(service)' account '\(account)'" }
}
