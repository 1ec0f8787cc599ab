/// A request waiting for an approver's answer (`vaultctl approve`): who asks for which item.
public struct ApprovalRequest: Sendable, Equatable {
    public var id: Int
    public var op: String
    public var service: String
    public var account: String
    public var pid: Int32?
    public var exe: String?
    public var script: String?
    public var cwd: String?
    public var unit: String?
    /// Seconds before vaultd denies it for want of an answer.
    public var expiresIn: Double
}

/// An approver's answer.
public enum ApprovalDecision: Sendable, Equatable {
    case once
    case minutes(Int)
    /// Writes a rule allowing the caller's program (its script, for an interpreter).
    case always
    case deny
}
