/// One process of a requester's ancestry, as the approver is shown it: its pid, program and
/// working directory (nil where vaultd could not read them).
public struct ProcessBody: Codable, Sendable, Equatable {
    public var pid: Int32
    public var exe: String?
    public var cwd: String?

    public init(pid: Int32, exe: String?, cwd: String?) {
        self.pid = pid
        self.exe = exe
        self.cwd = cwd
    }
}
