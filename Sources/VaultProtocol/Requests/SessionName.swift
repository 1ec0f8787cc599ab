/// `logout`: a session by service, and by account when the service has several.
public struct SessionName: Codable, Sendable, Equatable {
    public var service: String
    public var account: String?
    /// `logout` only: true forgets the session here without asking the provider (`--local`).
    public var local: Bool?

    public init(service: String, account: String? = nil, local: Bool? = nil) {
        self.service = service
        self.account = account
        self.local = local
    }
}
