/// Who sent a request, as vaultd could establish it from the peer's pidfd and /proc (see
/// `PeerProcess.identify`). Anything vaultd could not read is nil; a rule never matches nil.
public struct CallerIdentity: Sendable, Equatable {
    /// The peer's pid (SO_PEERCRED); nil for requests that came from no socket (in-process tests).
    public var pid: Int32?
    /// The executable the process runs (/proc/PID/exe), and the SHA-256 of that file's content.
    public var executable: String?
    public var executableHash: String?
    /// For an interpreter (python3, bash, perl, ...), the script it runs: the first argument that
    /// is not an option, resolved against the process's working directory, and its SHA-256.
    public var script: String?
    public var scriptHash: String?
    /// The working directory and the systemd unit (from /proc/PID/cgroup), for people.
    public var workingDirectory: String?
    public var unit: String?

    public init(pid: Int32? = nil) {
        self.pid = pid
    }

    /// A caller nothing is known about.
    public static let unknown = CallerIdentity()

    /// The programs a rule can name for this caller: the executable, and the script when it runs one.
    var programs: [(path: String, hash: String)] {
        var programs: [(path: String, hash: String)] = []
        if let executable, let executableHash { programs.append((executable, executableHash)) }
        if let script, let scriptHash { programs.append((script, scriptHash)) }
        return programs
    }

    /// The program to name in a rule written for this caller: its script when it runs one.
    var principal: (path: String, hash: String)? { programs.last }

    /// "pid 42 /usr/bin/python3 running /home/a/x.py (unit app.service)", for messages and prompts.
    public var summary: String {
        var text = pid.map { "pid \($0)" } ?? "an in-process caller"
        text += " " + (executable ?? "(executable unknown)")
        if let script { text += " running \(script)" }
        if let unit { text += " (unit \(unit))" }
        return text
    }
}
