import VaultCore

/// What `listing` returns: the items, and the items of vault's part of the store that no
/// service/account pair can address (Secret Service items with an empty, missing or over-long
/// account, or a control character in a name), so that nothing is invisible. Their names are as
/// stored: sanitize them before printing.
public struct ItemListing: Sendable, Equatable {
    public var items: [ItemMetadata]
    public var unaddressable: [UnaddressableItem]

    public init(items: [ItemMetadata], unaddressable: [UnaddressableItem]) {
        self.items = items
        self.unaddressable = unaddressable
    }
}
