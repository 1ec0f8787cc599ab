/// `allow`, `disallow` and `rules`: an item's key and, for allow and disallow, the program's
/// absolute path (vaultd resolves symbolic links and, for allow, hashes the file now). For
/// `allow` of a script, `interpreter`: the absolute path of the program that runs it, when its
/// `#!` line does not say or says `env NAME` (the client resolves NAME in its PATH).
public struct AccessRuleRequest: Codable, Sendable, Equatable {
    public var service: String
    public var account: String
    public var path: String?
    public var interpreter: String?

    public init(service: String, account: String, path: String? = nil, interpreter: String? = nil) {
        self.service = service
        self.account = account
        self.path = path
        self.interpreter = interpreter
    }
}
