/// An item with its secret.
public struct Item: Sendable, Equatable {
    public var info: ItemInfo
    public var secret: SecretBytes

    public init(info: ItemInfo, secret: SecretBytes) {
        self.info = info
        self.secret = secret
    }

    public var key: ItemKey { info.key }
}
