/// Who sent a request, as vaultd could establish it from the peer's pidfd and /proc (see
/// `PeerProcess.identify`). Anything vaultd could not read is nil; a rule never matches nil.
public struct CallerIdentity: Sendable, Equatable {
    /// The peer's pid (SO_PEERCRED); nil for requests that came from no socket (in-process tests).
    public var pid: Int32?
    /// The executable the process runs (/proc/PID/exe), and the SHA-256 of that file's content.
    public var executable: String?
    public var executableHash: String?
    /// For an interpreter (python3, bash, perl, ...), the script it runs, read from its arguments
    /// with that interpreter's option table (`InterpreterArguments`), resolved against the
    /// process's working directory, and its SHA-256.
    public var script: String?
    public var scriptHash: String?
    /// Why code other than the program's own may run in it (`CodeInjection`: "LD_PRELOAD is set
    /// in its environment"); such a caller matches no rule.
    public var injection: String?
    /// Why nothing but the pid is known, when a door knows why (`SecretServiceCaller`).
    public var unidentified: String?
    /// The working directory and the systemd unit (from /proc/PID/cgroup), for people.
    public var workingDirectory: String?
    public var unit: String?

    public init(pid: Int32? = nil) {
        self.pid = pid
    }

    /// A caller nothing is known about.
    public static let unknown = CallerIdentity()

    /// The program a rule written for this caller names: its script, with the interpreter
    /// running it, when it runs one; else its executable. nil when either could not be read.
    var principal: Program? {
        guard let executable, let executableHash else { return nil }
        guard script != nil || scriptHash != nil else { return Program(path: executable, hash: executableHash) }
        guard let script, let scriptHash else { return nil }
        return Program(path: script, hash: scriptHash, interpreter: Program(path: executable, hash: executableHash))
    }

    /// A program as a rule pins it: its path and content hash, and for a script the interpreter's.
    public struct Program: Sendable, Equatable {
        public var path: String
        public var hash: String
        /// For a script: the interpreter it must run under (never itself a script).
        public var interpreter: Interpreter?

        public struct Interpreter: Sendable, Equatable {
            public var path: String
            public var hash: String
        }

        public init(path: String, hash: String, interpreter: Program? = nil) {
            self.path = path
            self.hash = hash
            self.interpreter = interpreter.map { Interpreter(path: $0.path, hash: $0.hash) }
        }
    }

    /// "pid 42 /usr/bin/python3 running /home/a/x.py (unit app.service)", for messages and prompts.
    public var summary: String {
        var text = pid.map { "pid \($0)" } ?? "an in-process caller"
        text += " " + (executable ?? "(executable unknown\(unidentified.map { ": \($0)" } ?? ""))")
        if let script { text += " running \(script)" }
        if let unit { text += " (unit \(unit))" }
        return text
    }
}
