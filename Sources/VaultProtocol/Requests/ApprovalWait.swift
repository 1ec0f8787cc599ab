/// `approve_next`: registers this connection as an approver (until it closes) and waits up to
/// `wait` seconds (at most 25; default 20) for a request that needs an answer.
public struct ApprovalWait: Codable, Sendable, Equatable {
    public var wait: Double?

    public init(wait: Double? = nil) { self.wait = wait }
}
