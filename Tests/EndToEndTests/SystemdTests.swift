import Foundation
import Testing
import VaultCore

/// The systemd integration: units, socket activation, the sandbox's syscall filter, journal
/// priorities, install and uninstall.
@Suite struct SystemdTests {
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path

    @Test func theUnitsPassSystemdAnalyzeVerify() throws {
        let vault = VaultHarness()
        let service = try String(contentsOfFile: Self.packageRoot + "/systemd/vaultd.service", encoding: .utf8)
            .replacingOccurrences(of: "@BINDIR@", with: VaultHarness.binDirectory)
        try service.write(toFile: vault.root + "/vaultd.service", atomically: true, encoding: .utf8)
        try FileManager.default.copyItem(atPath: Self.packageRoot + "/systemd/vaultd.socket", toPath: vault.root + "/vaultd.socket")
        let result = try vault.run(["/usr/bin/systemd-analyze", "--user", "verify", "--man=no", vault.root + "/vaultd.service", vault.root + "/vaultd.socket"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.isEmpty, "\(result.stderr)")
    }

    @Test func socketActivationStartsVaultdOnTheFirstConnection() throws {
        let vault = VaultHarness()
        try FileManager.default.createDirectory(atPath: vault.root + "/run/vault", withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        // Spawned directly: systemd-socket-activate closes every inherited descriptor before it
        // execs vaultd, which Foundation's Process takes for an exit and then blocks waiting on.
        let arguments = ["/usr/bin/systemd-socket-activate", "--listen=" + vault.socketPath]
            + ["VAULT_PASSPHRASE_FILE", "XDG_RUNTIME_DIR", "XDG_DATA_HOME", "VAULT_KDF_LOG2N", "HOME"].map { "--setenv=\($0)=\(vault.environment[$0]!)" }
            + [VaultHarness.vaultd, "--log-file", vault.root + "/activated.log"]
        let activator = try vault.spawnDirectly(arguments)
        defer {
            kill(activator, SIGTERM)
            var status: Int32 = 0
            waitpid(activator, &status, 0)
        }
        for _ in 0..<200 where !FileManager.default.fileExists(atPath: vault.socketPath) { usleep(10_000) }
        #expect(vault.daemonPIDs().isEmpty, "vaultd must not run before the first connection")

        let noAutostart = ["VAULT_NO_AUTOSTART": "1"]
        #expect(try vault.ctl(["set", "activated", "acct"], input: Array("via systemd".utf8), environment: noAutostart).status == 0)
        #expect(try vault.ctl(["get", "activated", "acct"], environment: noAutostart).stdout == Array("via systemd".utf8))
        let log = (try? String(contentsOfFile: vault.root + "/activated.log", encoding: .utf8)) ?? ""
        #expect(log.contains("using the socket passed by systemd"))
        // A second vaultd started by hand sees the activated one instead of stealing its socket.
        let second = try vault.run([VaultHarness.vaultd])
        #expect(second.status == 0 && second.stderr.contains("already running"))
        #expect(try vault.ctl(["status"], environment: noAutostart).status == 0)
    }

    /// The service runs under SystemCallFilter=@system-service and MemoryDenyWriteExecute=yes.
    /// Trace every system call vaultd makes through a full workload (start, create, write, read,
    /// lock, unlock, passphrase change, bad input, SIGTERM) and check each one is in the filter,
    /// and that no mapping is ever made writable and executable or made executable later.
    @Test func everySyscallVaultdMakesIsAllowedByTheServiceSandbox() throws {
        let vault = VaultHarness()
        let trace = vault.root + "/trace"
        let tracer = Process()
        tracer.executableURL = URL(fileURLWithPath: "/usr/bin/strace")
        tracer.arguments = ["-f", "-qq", "-o", trace, VaultHarness.vaultd, "--log-file", vault.root + "/traced.log"]
        tracer.environment = vault.environment
        try tracer.run()
        try vault.waitForSocket()
        let env = ["VAULT_NO_AUTOSTART": "1"]
        #expect(try vault.ctl(["set", "a", "b"], input: Array("x".utf8), environment: env).status == 0)
        #expect(try vault.ctl(["get", "a", "b"], environment: env).status == 0)
        #expect(try vault.ctl(["list"], environment: env).status == 0)
        #expect(try vault.ctl(["lock"], environment: env).status == 0)
        #expect(try vault.ctl(["unlock"], input: Array((vault.passphrase + "\n").utf8), environment: env).status == 0)
        #expect(try vault.ctl(["passwd"], input: Array((vault.passphrase + "\nanother one\n").utf8), environment: env).status == 0)
        let connection = try RawConnection(path: vault.socketPath)
        _ = try connection.request("garbage")
        connection.close()
        // strace's pid is the tracer's; signal vaultd itself.
        for pid in vault.daemonPIDs() { kill(pid, SIGTERM) }
        tracer.waitUntilExit()

        let allowed = try Self.allowedSyscalls()
        #expect(allowed.count > 100)
        var used = Set<String>()
        var writableExecutable: [String] = []
        for line in try String(contentsOfFile: trace, encoding: .utf8).split(separator: "\n") {
            // "PID  name(arguments) = result"; strace pads the pid column to its width.
            let call = String(line.drop(while: { $0.isNumber }).drop(while: { $0 == " " }))
            guard let open = call.firstIndex(of: "(") else { continue }
            let name = String(call[..<open])
            guard name.allSatisfy({ $0.isLowercase || $0.isNumber || $0 == "_" }), !name.isEmpty else { continue }
            used.insert(name)
            if (name == "mmap" && call.contains("PROT_WRITE") && call.contains("PROT_EXEC"))
                || ((name == "mprotect" || name == "pkey_mprotect") && call.contains("PROT_EXEC")) {
                writableExecutable.append(call)
            }
        }
        #expect(used.count > 20, "the trace looks empty")
        #expect(used.subtracting(allowed).sorted() == [], "system calls outside @system-service")
        #expect(writableExecutable.isEmpty, "\(writableExecutable.prefix(3))")
    }

    static func allowedSyscalls() throws -> Set<String> {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/systemd-analyze")
        process.arguments = ["syscall-filter"]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        var sets: [String: [String]] = [:]
        var current: String?
        for line in text.split(separator: "\n") {
            if line.hasPrefix("@") {
                current = line.trimmingCharacters(in: .whitespaces)
                sets[current!] = []
            } else if let current, case let item = line.trimmingCharacters(in: .whitespaces), !item.isEmpty, !item.hasPrefix("#") {
                sets[current]!.append(item)
            }
        }
        func expand(_ name: String, _ seen: inout Set<String>) -> Set<String> {
            var result = Set<String>()
            for item in sets[name] ?? [] {
                if item.hasPrefix("@") {
                    if seen.insert(item).inserted { result.formUnion(expand(item, &seen)) }
                } else {
                    result.insert(item)
                }
            }
            return result
        }
        var seen = Set<String>()
        return expand("@system-service", &seen)
    }

    @Test func underTheJournalLinesCarrySyslogPriorities() throws {
        let vault = VaultHarness()
        let daemon = try vault.startDaemon([], environment: ["JOURNAL_STREAM": "8:12345", "VAULT_PASSPHRASE_FILE": vault.root + "/missing"])
        #expect(vault.terminate(daemon), "vaultd did not stop on SIGTERM")
        let lines = vault.foregroundLog.split(separator: "\n")
        #expect(!lines.isEmpty)
        #expect(lines.allSatisfy { $0.hasPrefix("<") && $0.dropFirst(2).hasPrefix(">") }, "\(lines)")
        #expect(lines.contains { $0.hasPrefix("<6>") }, "\(lines)")
        #expect(lines.contains { $0.hasPrefix("<3>could not unlock") })
    }

    @Test func installPutsEveryFileWhereTheUnitsExpectAndUninstallRemovesThem() throws {
        let vault = VaultHarness()
        let prefix = vault.root + "/prefix", units = vault.root + "/units"
        // A systemd user manager that answers (a stand-in for systemctl), and vault's activation
        // file asked for whatever else is installed.
        let systemctl = vault.root + "/systemctl"
        FileManager.default.createFile(atPath: systemctl, contents: Data("#!/bin/sh\nexit 0\n".utf8), attributes: [.posixPermissions: 0o755])
        let env = ["PREFIX": prefix, "UNITDIR": units, "BIN_SOURCE": VaultHarness.binDirectory, "SYSTEMCTL": systemctl, "SECRET_SERVICE_ACTIVATION": "yes"]
        let install = try vault.run([Self.packageRoot + "/scripts/install", "install"], environment: env)
        #expect(install.status == 0, "\(install.stderr)")
        #expect(install.text.contains("systemctl --user enable --now vaultd.socket"))

        let service = try String(contentsOfFile: units + "/vaultd.service", encoding: .utf8)
        #expect(service.contains("ExecStart=\(prefix)/bin/vaultd --socket %t/vault/vault.sock"))
        #expect(!service.contains("@BINDIR@"))
        for file in ["bin/vaultd", "bin/vaultctl", "bin/git-credential-vault", "bin/docker-credential-vault"] {
            #expect(FileManager.default.isExecutableFile(atPath: prefix + "/" + file), "\(file)")
        }
        let activation = try String(contentsOfFile: prefix + "/share/dbus-1/services/org.freedesktop.secrets.service", encoding: .utf8)
        #expect(activation.contains("Exec=\(prefix)/bin/vaultd --secret-service-provider on"))
        for file in ["share/man/man1/vaultctl.1", "share/man/man8/vaultd.8", "share/bash-completion/completions/vaultctl",
                     "share/zsh/site-functions/_vaultctl", "share/fish/vendor_completions.d/vaultctl.fish"] {
            #expect(FileManager.default.fileExists(atPath: prefix + "/" + file), "\(file)")
        }
        // The installed units verify, including their Documentation= man pages.
        let verify = try vault.run(["/usr/bin/systemd-analyze", "--user", "verify", units + "/vaultd.service", units + "/vaultd.socket"],
                                   environment: ["MANPATH": prefix + "/share/man"])
        #expect(verify.status == 0 && verify.stderr.isEmpty, "\(verify.stderr)")
        let bashSyntax = try vault.run(["/bin/bash", "-n", prefix + "/share/bash-completion/completions/vaultctl"])
        #expect(bashSyntax.status == 0, "\(bashSyntax.stderr)")
        // The installed vaultctl works and finds the installed vaultd next to it.
        #expect(try vault.run([prefix + "/bin/vaultctl", "set", "installed", "x"], input: Array("y".utf8)).status == 0)
        // git finds the installed helper by its name, `credential.helper vault`, on PATH.
        let gitEnvironment = ["PATH": prefix + "/bin:/usr/bin:/bin", "GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": "/dev/null", "GIT_TERMINAL_PROMPT": "0"]
        let approve = try vault.run(["/usr/bin/git", "-c", "credential.helper=vault", "credential", "approve"],
                                    input: Array("protocol=https\nhost=installed.example\nusername=u\npassword=p\n\n".utf8), environment: gitEnvironment)
        #expect(approve.status == 0 && approve.stderr.isEmpty, "\(approve.stderr)")
        let fill = try vault.run(["/usr/bin/git", "-c", "credential.helper=vault", "credential", "fill"],
                                 input: Array("protocol=https\nhost=installed.example\n\n".utf8), environment: gitEnvironment)
        #expect(fill.text.contains("username=u\npassword=p\n"), "\(fill.stderr)")
        vault.stopDaemons()

        let uninstall = try vault.run([Self.packageRoot + "/scripts/install", "uninstall"], environment: env)
        #expect(uninstall.status == 0, "\(uninstall.stderr)")
        #expect(!FileManager.default.fileExists(atPath: prefix), "left behind: \((FileManager.default.subpaths(atPath: prefix) ?? []))")
        #expect(!FileManager.default.fileExists(atPath: units))
    }

    /// Without a systemd user manager (a container, WSL, a CI runner: `systemctl --user` cannot
    /// reach one) install says there is nothing to enable and that vaultctl starts vaultd; the
    /// installed vaultctl then does.
    @Test func installWithoutASystemdUserManagerSaysVaultctlStartsVaultd() throws {
        let vault = VaultHarness()
        let prefix = vault.root + "/prefix"
        let noManager = vault.root + "/systemctl"
        FileManager.default.createFile(atPath: noManager, contents: Data("#!/bin/sh\necho 'Failed to connect to bus: No medium found' >&2\nexit 1\n".utf8),
                                       attributes: [.posixPermissions: 0o755])
        let env = ["PREFIX": prefix, "UNITDIR": vault.root + "/units", "BIN_SOURCE": VaultHarness.binDirectory, "SYSTEMCTL": noManager]
        let install = try vault.run([Self.packageRoot + "/scripts/install", "install"], environment: env)
        #expect(install.status == 0, "\(install.stderr)")
        #expect(install.text.contains("No systemd user manager answers here") && install.text.contains("vaultctl starts vaultd itself"), "\(install.text)")
        #expect(!install.text.contains("systemctl --user enable"))
        #expect(try vault.run([prefix + "/bin/vaultctl", "set", "no-systemd", "x"], input: Array("y".utf8)).status == 0)
        #expect(try vault.run([prefix + "/bin/vaultctl", "get", "no-systemd", "x"]).text == "y")
        vault.stopDaemons()
        #expect(try vault.run([Self.packageRoot + "/scripts/install", "uninstall"], environment: env).status == 0)
    }

    /// With GNOME Keyring installed, install leaves vault's activation file out (the user's own
    /// would win over the system's), so a session bus that finds services as `dbus-daemon
    /// --session` does (`<standard_session_servicedirs/>`) still starts GNOME Keyring for a Secret
    /// Service client; asked for it explicitly, vault's file wins and the bus starts vaultd.
    @Test(.enabled(if: FileManager.default.fileExists(atPath: "/usr/share/dbus-1/services/org.freedesktop.secrets.service"),
                   "needs a Secret Service provider installed for activation (gnome-keyring: scripts/install-deps test)"))
    func installLeavesAnInstalledSecretServiceProviderItsClients() throws {
        let vault = VaultHarness()
        let prefix = vault.root + "/prefix"
        let env = ["PREFIX": prefix, "UNITDIR": vault.root + "/units", "BIN_SOURCE": VaultHarness.binDirectory]
        let install = try vault.run([Self.packageRoot + "/scripts/install", "install"], environment: env)
        #expect(install.status == 0, "\(install.stderr)")
        #expect(install.text.contains("left out: another provider is installed for it"), "\(install.text)")
        #expect(install.text.contains("/usr/share/dbus-1/services/org.freedesktop.secrets.service") && install.text.contains("SECRET_SERVICE_ACTIVATION=yes"))
        #expect(!FileManager.default.fileExists(atPath: prefix + "/share/dbus-1/services/org.freedesktop.secrets.service"))
        let system = try Self.activatedSecretService(vault, dataHome: prefix + "/share", bus: "bus-system")
        #expect(system.hasSuffix("/gnome-keyring-daemon"), "\(system)")

        #expect(try vault.run([Self.packageRoot + "/scripts/install", "install"], environment: env.merging(["SECRET_SERVICE_ACTIVATION": "yes"]) { $1 }).status == 0)
        let chosen = try Self.activatedSecretService(vault, dataHome: prefix + "/share", bus: "bus-chosen")
        #expect(chosen == prefix + "/bin/vaultd", "\(chosen)")
        #expect(try vault.run([Self.packageRoot + "/scripts/install", "uninstall"], environment: env).status == 0)
    }

    /// Starts a session bus that finds services as `dbus-daemon --session` does, with
    /// XDG_DATA_HOME at `dataHome`, has it start org.freedesktop.secrets, and returns the program
    /// that then owns the name (stopped again, with the bus).
    static func activatedSecretService(_ vault: VaultHarness, dataHome: String, bus name: String) throws -> String {
        let socket = vault.root + "/" + name
        let config = """
            <!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
             "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
            <busconfig>
              <type>session</type>
              <listen>unix:path=\(socket)</listen>
              <auth>EXTERNAL</auth>
              <standard_session_servicedirs/>
              <policy context="default">
                <allow send_destination="*" eavesdrop="true"/>
                <allow eavesdrop="true"/>
                <allow own="*"/>
              </policy>
            </busconfig>
            """
        try config.write(toFile: socket + ".conf", atomically: true, encoding: .utf8)
        let environment = ["XDG_DATA_HOME": dataHome, "DBUS_SESSION_BUS_ADDRESS": "unix:path=" + socket]
        let busPID = try vault.spawnDirectly(["/usr/bin/dbus-daemon", "--config-file=" + socket + ".conf", "--nofork", "--nopidfile"],
                                             environment: environment, logPath: socket + ".log")
        var owner: pid_t = 0
        defer {
            for pid in [owner, busPID] where pid > 0 {
                kill(pid, SIGKILL)
                var status: Int32 = 0
                waitpid(pid, &status, WNOHANG)
            }
        }
        for _ in 0..<3000 where !FileManager.default.fileExists(atPath: socket) { usleep(10_000) }
        func call(_ method: String, _ arguments: [String]) throws -> String {
            try vault.run(["/usr/bin/timeout", "20", "/usr/bin/dbus-send", "--session", "--print-reply", "--dest=org.freedesktop.DBus", "/org/freedesktop/DBus",
                           "org.freedesktop.DBus." + method] + arguments, environment: environment).text
        }
        let started = try call("StartServiceByName", ["string:org.freedesktop.secrets", "uint32:0"])
        guard started.contains("uint32 1") || started.contains("uint32 2") else { return "not started: \(started)" }
        let reply = try call("GetConnectionUnixProcessID", ["string:org.freedesktop.secrets"])
        owner = pid_t(reply.split(separator: " ").last.flatMap { Int32($0.trimmingCharacters(in: .whitespacesAndNewlines)) } ?? 0)
        guard owner > 0 else { return "no owner: \(reply)" }
        return (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(owner)/exe")) ?? "unreadable"
    }
}
