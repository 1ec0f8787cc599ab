/// Every `space_*` operation's payload: the space's `name`, and what the operation takes of the
/// rest: `remote`, `path` and `device` (the device's name) for `space_create` and `space_join`;
/// `words` (the fingerprint) for `space_admit`; `service` and `account` for `space_add`,
/// `space_remove` and `space_resolve` (with `keep`: `item` or `copy`); `device` (an id or a
/// name) for `space_remove_device`.
public struct SpaceRequest: Codable, Sendable, Equatable {
    public var name: String
    public var remote: String?
    public var path: String?
    public var device: String?
    public var words: [String]?
    public var service: String?
    public var account: String?
    public var keep: String?

    public init(name: String, remote: String? = nil, path: String? = nil, device: String? = nil, words: [String]? = nil,
                service: String? = nil, account: String? = nil, keep: String? = nil) {
        self.name = name
        self.remote = remote
        self.path = path
        self.device = device
        self.words = words
        self.service = service
        self.account = account
        self.keep = keep
    }
}
