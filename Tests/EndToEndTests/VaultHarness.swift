import Foundation
import VaultCore
import VaultSystem
@_exported import VaultTestSupport

/// A private world for the built vaultd and vaultctl: temporary XDG_RUNTIME_DIR and
/// XDG_DATA_HOME, a passphrase file, cheap scrypt. Stops every daemon it started when released.
/// `unprivileged`: everything it runs runs as an ordinary uid (`UnprivilegedUser`).
final class VaultHarness: @unchecked Sendable {
    let root: String
    let passphrase = "e2e passphrase 1"
    var environment: [String: String]
    /// The uid everything runs as, when not this process's (`UnprivilegedUser`).
    let user: UInt32?

    init(passphraseFile: Bool = true, unprivileged: Bool = false) {
        user = unprivileged ? UnprivilegedUser.uid : nil
        // Writing a child's stdin after it exited must fail, not kill the test runner.
        signal(SIGPIPE, SIG_IGN)
        var template = Array("/tmp/vault-e2e-XXXXXX".utf8CString)
        root = template.withUnsafeMutableBufferPointer { String(cString: mkdtemp($0.baseAddress!)) }
        try? FileManager.default.createDirectory(atPath: root + "/run", withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        try? FileManager.default.createDirectory(atPath: root + "/home", withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        FileManager.default.createFile(atPath: root + "/passphrase", contents: Data((passphrase + "\n").utf8), attributes: [.posixPermissions: 0o600])
        // Nothing of the developer's session leaks in: no vault settings, no credentials, and no
        // session bus, so no test (the fuzzer's `migrate` to the Secret Service, say) can reach
        // the developer's own keyring. Tests that want a bus start a private one (PrivateKeyring).
        let inherited = ["CREDENTIALS_DIRECTORY", "NOTIFY_SOCKET", "DBUS_SESSION_BUS_ADDRESS", "DISPLAY", "WAYLAND_DISPLAY", "XDG_CONFIG_HOME"]
        var environment = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("VAULT_") && !inherited.contains($0.key) }
        environment["XDG_RUNTIME_DIR"] = root + "/run"
        environment["XDG_DATA_HOME"] = root + "/data"
        environment["HOME"] = root + "/home"
        environment["VAULT_KDF_LOG2N"] = "14"
        environment["VAULT_BACKEND"] = "file"
        if passphraseFile { environment["VAULT_PASSPHRASE_FILE"] = root + "/passphrase" }
        environment["VAULT_TEST_CLOCK_OFFSET_FILE"] = root + "/clock-offset"
        self.environment = environment
        if user != nil { UnprivilegedUser.own(root) }
    }

    deinit {
        stopDaemons()
        try? FileManager.default.removeItem(atPath: root)
    }

    /// Moves the clock vaultd decides sessions by `seconds` ahead (`SessionClock`, debug builds):
    /// a token expires without the test sleeping until it does.
    func advanceSessionClock(by seconds: Double) {
        let path = root + "/clock-offset"
        let current = (try? String(contentsOfFile: path, encoding: .utf8)).flatMap { Double($0) } ?? 0
        FileManager.default.createFile(atPath: path, contents: Data(String(current + seconds).utf8), attributes: [.posixPermissions: 0o644])
    }

    var socketPath: String { root + "/run/vault/vault.sock" }
    var vaultFile: String { root + "/data/vault/vault.db" }
    var daemonLog: String { root + "/run/vault/vaultd.log" }
    /// vault's configuration file for this harness's HOME (absent unless a test writes it).
    var configFile: String { root + "/home/.config/vault/config" }

    static var binDirectory: String { FileSystem.parentDirectory(of: BuiltProducts.path("vaultctl")) }
    static var vaultctl: String { binDirectory + "/vaultctl" }
    static var vaultd: String { binDirectory + "/vaultd" }

    /// vaultctl and vaultd as this harness runs them: the built ones, or the copies another uid can reach.
    var vaultctlPath: String { product("vaultctl") }
    var vaultdPath: String { product("vaultd") }
    /// One of vault's programs (vaultd, vaultctl, the helpers) where the harness's uid can run it.
    func product(_ name: String) -> String { (user == nil ? Self.binDirectory : UnprivilegedUser.programs) + "/" + name }

    /// `bytes` as the whole of `path`, written by the harness's uid (as a program of the user would).
    func writeAsUser(_ bytes: [UInt8], to path: String) throws {
        let result = try run(["/bin/dd", "of=" + path, "status=none"], input: bytes)
        guard result.status == 0 else { throw VaultError.unavailable("dd could not write \(path): \(result.stderr)") }
    }
    /// Tests/Fixtures/`name`, where the harness's uid can read it.
    func fixture(_ name: String) -> String {
        (user == nil ? PythonFixture.packageRoot + "/Tests/Fixtures" : UnprivilegedUser.programs) + "/" + name
    }

    /// What runs a command as the harness's uid (nothing when that is this process's).
    var asUser: [String] { user == nil ? [] : UnprivilegedUser.prefix }

    /// Hands a file or directory the test made to the harness's uid.
    func own(_ path: String) {
        if user != nil { UnprivilegedUser.own(path) }
    }

    typealias Result = ProcessRunner.Result

    /// Runs vaultctl with `arguments`, `input` on stdin.
    @discardableResult
    func ctl(_ arguments: [String], input: [UInt8] = [], environment extra: [String: String] = [:], prefix: [String] = []) throws -> Result {
        try run(prefix + [vaultctlPath] + arguments, input: input, environment: extra)
    }

    func ctl(_ arguments: String..., input: String = "") throws -> Result {
        try ctl(arguments, input: Array(input.utf8))
    }

    /// Starts vaultctl without waiting, `input` written to its stdin; its stdout is readable from
    /// the returned pipe. For tests of simultaneous calls.
    func startCtl(_ arguments: [String], input: String = "") throws -> (process: Process, output: Pipe) {
        let process = Process()
        let command = asUser + [vaultctlPath] + arguments
        process.executableURL = URL(fileURLWithPath: command[0])
        process.arguments = Array(command.dropFirst())
        process.environment = environment
        let stdin = Pipe(), output = Pipe()
        process.standardInput = stdin
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        stdin.fileHandleForWriting.write(Data(input.utf8))
        try stdin.fileHandleForWriting.close()
        return (process, output)
    }

    func run(_ command: [String], input: [UInt8] = [], environment extra: [String: String] = [:]) throws -> Result {
        try ProcessRunner.run(asUser + command, environment: environment.merging(extra) { $1 }, input: input)
    }

    /// Starts vaultd in the foreground of a child process and waits until it answers.
    func startDaemon(_ arguments: [String] = [], environment extra: [String: String] = [:], waitUntilServing: Bool = true) throws -> Process {
        let process = Process()
        let command = asUser + [vaultdPath, "--log-file", root + "/vaultd-foreground.log"] + arguments
        process.executableURL = URL(fileURLWithPath: command[0])
        process.arguments = Array(command.dropFirst())
        process.environment = environment.merging(extra) { $1 }
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        started.append(process)
        if waitUntilServing { try waitForSocket() }
        return process
    }

    /// posix_spawn without Foundation (whose Process mistakes a child that closes its inherited
    /// descriptors for one that exited). stdin from `stdinPath`, output to `logPath` or discarded.
    func spawnDirectly(_ arguments: [String], environment extra: [String: String] = [:], stdinPath: String? = nil, logPath: String? = nil) throws -> pid_t {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, stdinPath ?? "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, logPath ?? "/dev/null", O_WRONLY | O_CREAT | O_APPEND, 0o600)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        let arguments = asUser + arguments
        var argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        var envp: [UnsafeMutablePointer<CChar>?] = environment.merging(extra) { $1 }.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { for pointer in argv + envp { free(pointer) } }
        var pid: pid_t = 0
        let result = posix_spawn(&pid, arguments[0], &actions, nil, &argv, &envp)
        guard result == 0 else { throw Errno(result) }
        return pid
    }

    /// SIGTERM, then waits at most `seconds`; a daemon still running is killed and reported.
    @discardableResult
    func terminate(_ process: Process, within seconds: Double = 10) -> Bool {
        process.terminate()
        let deadline = Date().addingTimeInterval(seconds)
        while process.isRunning && Date() < deadline { usleep(10_000) }
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            return false
        }
        process.waitUntilExit()
        return true
    }

    var foregroundLog: String { (try? String(contentsOfFile: root + "/vaultd-foreground.log", encoding: .utf8)) ?? "" }

    private var started: [Process] = []

    /// Waits until a vaultd answers on `path` (default: this harness's socket).
    func waitForSocket(_ path: String? = nil, timeout: Double = 30) throws {
        let path = path ?? socketPath
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if let connection = try? RawConnection(path: path) {
                connection.close()
                return
            }
            usleep(10_000)
        }
        throw VaultError.unavailable("vaultd did not start listening on \(path)")
    }

    /// Pids of running vaultd processes serving this harness's socket.
    func daemonPIDs() -> [Int32] {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return entries.compactMap(Int32.init).filter { pid in
            guard let raw = FileManager.default.contents(atPath: "/proc/\(pid)/cmdline") else { return false }
            let arguments = raw.split(separator: 0).map { String(decoding: $0, as: UTF8.self) }
            guard arguments.first?.hasSuffix("/vaultd") == true else { return false }
            guard let environ = FileManager.default.contents(atPath: "/proc/\(pid)/environ") else {
                return arguments.contains(socketPath)
            }
            return arguments.contains(socketPath) || String(decoding: environ, as: UTF8.self).contains("XDG_RUNTIME_DIR=\(root)/run")
        }
    }

    func stopDaemons() {
        for process in started where process.isRunning { process.terminate() }
        for pid in daemonPIDs() { kill(pid, SIGTERM) }
        let deadline = Date().addingTimeInterval(5)
        while Date() < deadline && (started.contains { $0.isRunning } || !daemonPIDs().isEmpty) { usleep(20_000) }
        for pid in daemonPIDs() { kill(pid, SIGKILL) }
    }
}

/// A raw protocol connection, to send exactly the bytes a test wants.
final class RawConnection {
    let fd: FileDescriptor
    private var buffer: [UInt8] = []

    init(path: String) throws {
        fd = try UnixSocket.stream()
        do { try UnixSocket.connect(fd, path: path) } catch {
            fd.close()
            throw error
        }
        UnixSocket.setTimeouts(fd, seconds: 10)
    }

    func close() { fd.close() }

    func send(_ text: String) throws { try fd.sendAll(Array(text.utf8)) }
    func send(_ bytes: [UInt8]) throws { try fd.sendAll(bytes) }

    /// The next response line as JSON, or nil when the daemon closed the connection.
    func receive() throws -> [String: Any]? {
        while true {
            if let newline = buffer.firstIndex(of: 10) {
                let line = Array(buffer[..<newline])
                buffer.removeSubrange(...newline)
                return try JSONSerialization.jsonObject(with: Data(line)) as? [String: Any]
            }
            var chunk = [UInt8](repeating: 0, count: 65536)
            let count: Int
            do {
                count = try chunk.withUnsafeMutableBytes { try fd.read(into: $0) }
            } catch let error as Errno where error == Errno(ECONNRESET) {
                // Closed with our unread bytes still in its buffer: the kernel says reset, not EOF.
                return nil
            }
            if count == 0 { return nil }
            buffer.append(contentsOf: chunk[0..<count])
        }
    }

    func request(_ json: String) throws -> [String: Any]? {
        try send(json + "\n")
        return try receive()
    }
}

extension Dictionary where Key == String, Value == Any {
    var errorCode: String? { (self["error"] as? [String: Any])?["code"] as? String }
    var ok: Bool { self["ok"] as? Bool == true }
}
