/// An item of the store that no service/account pair can address (`list`'s `unaddressable`,
/// `migrate`'s `left_in_place`): its names as stored (the account absent when it has none), its
/// label, and why vault cannot address it.
public struct UnaddressableBody: Codable, Sendable, Equatable {
    public var service: String
    public var account: String?
    public var label: String
    public var reason: String
    /// RFC 3339 UTC with milliseconds.
    public var modified: String

    public init(service: String, account: String?, label: String, reason: String, modified: String) {
        self.service = service
        self.account = account
        self.label = label
        self.reason = reason
        self.modified = modified
    }
}
