/// `get` and `delete`: the item's key.
public struct ItemName: Codable, Sendable, Equatable {
    public var service: String
    public var account: String

    public init(service: String, account: String) {
        self.service = service
        self.account = account
    }
}
