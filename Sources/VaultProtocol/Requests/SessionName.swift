/// `logout`: a session by service, and by account when the service has several.
public struct SessionName: Codable, Sendable, Equatable {
    public var service: String
    public var account: String?

    public init(service: String, account: String? = nil) {
        self.service = service
        self.account = account
    }
}
