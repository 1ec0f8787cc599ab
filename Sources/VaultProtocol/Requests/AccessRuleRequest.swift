/// `allow`, `disallow` and `rules`: an item's key and, for allow and disallow, the program's
/// absolute path (vaultd resolves symbolic links and, for allow, hashes the file now). For
/// `allow` of a script, `interpreter`: the absolute path of the program that runs it, when its
/// `#!` line does not say or says `env NAME` (the client resolves NAME in its PATH). `any_caller`:
/// allow a program that serves whoever runs it (vault's own clients, a bare interpreter), which
/// `allow` otherwise refuses.
public struct AccessRuleRequest: Codable, Sendable, Equatable {
    public var service: String
    public var account: String
    public var path: String?
    public var interpreter: String?
    public var anyCaller: Bool?

    enum CodingKeys: String, CodingKey {
        case service, account, path, interpreter
        case anyCaller = "any_caller"
    }

    public init(service: String, account: String, path: String? = nil, interpreter: String? = nil, anyCaller: Bool? = nil) {
        self.service = service
        self.account = account
        self.path = path
        self.interpreter = interpreter
        self.anyCaller = anyCaller
    }
}
