/// An item in vault's part of a store (the Secret Service items with a `service` attribute) whose
/// names no `ItemKey` can hold: vault cannot get, set or delete it, but lists and counts it, and
/// `migrate` reports it as left in place. The names are as stored: they may be empty, hold
/// control characters or be over the limit; whoever prints them sanitizes them.
public struct UnaddressableItem: Sendable, Equatable {
    /// The `service` attribute.
    public var service: String
    /// The `username` attribute; nil when the item has none.
    public var account: String?
    public var label: String
    /// Why vault cannot address it, and what to do: "account is empty; rename it with ...".
    public var reason: String
    /// Milliseconds since the Unix epoch, UTC.
    public var modified: Int64

    public init(service: String, account: String?, label: String, reason: String, modified: Int64) {
        self.service = service
        self.account = account
        self.label = label
        self.reason = reason
        self.modified = modified
    }
}
