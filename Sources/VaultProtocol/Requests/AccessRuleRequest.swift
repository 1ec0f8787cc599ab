/// `allow`, `disallow` and `rules`: an item's key and, for allow and disallow, the program's
/// absolute path (vaultd resolves symbolic links and, for allow, hashes the file now).
public struct AccessRuleRequest: Codable, Sendable, Equatable {
    public var service: String
    public var account: String
    public var path: String?

    public init(service: String, account: String, path: String? = nil) {
        self.service = service
        self.account = account
        self.path = path
    }
}
