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
    /// The requester's parent, grandparent, ... as vaultd could read them.
    public var ancestry: [Ancestor]

    public struct Ancestor: Sendable, Equatable {
        public var pid: Int32
        public var exe: String?
        public var cwd: String?

        public init(pid: Int32, exe: String?, cwd: String?) {
            (self.pid, self.exe, self.cwd) = (pid, exe, cwd)
        }
    }

    public init(id: Int, op: String, service: String, account: String, pid: Int32?, exe: String?, script: String?, cwd: String?,
                unit: String?, expiresIn: Double, ancestry: [Ancestor] = []) {
        (self.id, self.op, self.service, self.account, self.pid) = (id, op, service, account, pid)
        (self.exe, self.script, self.cwd, self.unit, self.expiresIn) = (exe, script, cwd, unit, expiresIn)
        self.ancestry = ancestry
    }
}

/// An approver's answer.
public enum ApprovalDecision: Sendable, Equatable {
    case once
    case minutes(Int)
    /// Writes a rule allowing the caller's program (its script, for an interpreter).
    case always
    case deny
}
