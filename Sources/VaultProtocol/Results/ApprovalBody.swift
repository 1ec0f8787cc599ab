/// `approve_next`: a request waiting for the approver's answer: who asks (pid, program, working
/// directory, systemd unit) for what.
public struct ApprovalBody: Codable, Sendable, Equatable {
    public var id: Int
    public var op: String
    public var service: String
    public var account: String
    public var pid: Int32?
    public var exe: String?
    public var script: String?
    public var cwd: String?
    public var unit: String?
    /// Seconds left before the request is denied for want of an answer.
    public var expiresIn: Double
    /// The requester's parent, its parent, and so on (at most `maxAncestry`), so that a person
    /// sees `python3 evil.py → git → git-credential-vault` and not only the last program.
    public var ancestry: [ProcessBody]?

    public static let maxAncestry = 8

    enum CodingKeys: String, CodingKey {
        case id, op, service, account, pid, exe, script, cwd, unit, ancestry
        case expiresIn = "expires_in"
    }

    public init(id: Int, op: String, service: String, account: String, pid: Int32?, exe: String?, script: String?, cwd: String?,
                unit: String?, expiresIn: Double, ancestry: [ProcessBody]? = nil) {
        self.id = id
        self.op = op
        self.service = service
        self.account = account
        self.pid = pid
        self.exe = exe
        self.script = script
        self.cwd = cwd
        self.unit = unit
        self.expiresIn = expiresIn
        self.ancestry = ancestry
    }
}
