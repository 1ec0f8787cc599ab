import Foundation
import Testing
import VaultCore
import VaultTestSupport

/// Attacks from another user on the same machine (issue 10, 1 to 4): a squatted or swapped socket
/// directory, a listener of another uid, a log that is a link or a FIFO, a vaultd planted in the
/// current directory. Other uids come from `setpriv`, so the tests that use them run only as root
/// (skipped with the reason otherwise). What another uid runs is copied where it can reach it
/// (`UnprivilegedUser.programs`).
@Suite struct LocalTrustTests {
    /// Arbitrary uids without passwd entries, unlikely to collide with a concurrent test run.
    static let victim = UInt32(30_000 + Int(getpid()) % 10_000)
    static let attacker = victim + 10_000

    static func asUser(_ uid: UInt32) -> [String] {
        ["/usr/bin/setpriv", "--reuid=\(uid)", "--regid=\(uid)", "--clear-groups"]
    }

    /// Bounds a command that would hang on the old code (a FIFO, a daemon that keeps running).
    static let bounded = ["/usr/bin/timeout", "-s", "KILL", "20"]

    /// A fresh directory under /tmp owned by `owner` with `mode`.
    static func directory(owner: UInt32, mode: mode_t) -> TemporaryDirectory {
        let directory = TemporaryDirectory(prefix: "vault-trust")
        chown(directory.path, owner, owner)
        chmod(directory.path, mode)
        return directory
    }

    /// The victim's environment: no XDG_RUNTIME_DIR, a home of its own.
    static func victimEnvironment(_ vault: VaultHarness, home: String, extra: [String: String] = [:]) -> [String: String] {
        var environment = vault.environment
        environment["XDG_RUNTIME_DIR"] = nil
        environment["HOME"] = home
        return environment.merging(extra) { $1 }
    }

    /// Tests/Fixtures/squatter.py: a listener that records how many bytes each client sent.
    final class Squatter {
        let process = Process()
        let record: String

        init(socket: String, record: String, user: UInt32?) throws {
            self.record = record
            // Where another uid can read it: the checkout may be in a 0700 home.
            let script = UnprivilegedUser.programs + "/squatter.py"
            let command = (user.map(LocalTrustTests.asUser) ?? []) + ["/usr/bin/python3", script, socket, record]
            process.executableURL = URL(fileURLWithPath: command[0])
            process.arguments = Array(command.dropFirst())
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            for _ in 0..<1500 where !FileManager.default.fileExists(atPath: record + ".ready") {
                guard process.isRunning else { break }
                usleep(20_000)
            }
            guard FileManager.default.fileExists(atPath: record + ".ready") else { throw VaultError.unavailable("the squatter did not start") }
        }

        deinit {
            // SIGKILL: the test runner's blocked signal mask is inherited, so SIGTERM would stay pending.
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }

        /// Bytes received, one entry per connection.
        var received: [Int] {
            ((try? String(contentsOfFile: record, encoding: .utf8)) ?? "").split(separator: "\n").compactMap { Int($0) }
        }
    }

    // 1. Socket squatting.

    @Test(UnprivilegedUser.otherUIDs) func theFallbackLocationIsNotInTmpSoASquatterThereGetsNothing() throws {
        let vault = VaultHarness()
        let root = Self.directory(owner: Self.victim, mode: 0o700)
        let home = root.path + "/home"
        mkdir(home, 0o700)
        chown(home, Self.victim, Self.victim)
        // The attacker pre-creates the old fallback directory, open to all, with a listener in it.
        let squatted = "/tmp/vault-\(Self.victim)"
        try? FileManager.default.removeItem(atPath: squatted)
        mkdir(squatted, 0o777)
        chmod(squatted, 0o777)
        chown(squatted, Self.attacker, Self.attacker)
        defer { try? FileManager.default.removeItem(atPath: squatted) }
        let squatter = try Squatter(socket: squatted + "/vault.sock", record: squatted + "/received", user: Self.attacker)

        let result = try ProcessRunner.run(
            Self.bounded + Self.asUser(Self.victim) + [UnprivilegedUser.programs + "/vaultctl", "set", "svc", "acct"],
            environment: Self.victimEnvironment(vault, home: home, extra: ["VAULT_NO_AUTOSTART": "1"]),
            input: Array("canary-secret".utf8))
        #expect(result.status == 5, "\(result.stderr)")
        #expect(result.stderr.contains(home + "/.local/state/vault/vault.sock"), "\(result.stderr)")
        #expect(squatter.received.isEmpty, "the squatter received \(squatter.received) bytes")
    }

    @Test(UnprivilegedUser.otherUIDs) func aSocketDirectoryOwnedByAnotherUserIsRefusedBeforeAnythingIsSent() throws {
        let vault = VaultHarness()
        let root = Self.directory(owner: Self.victim, mode: 0o700)
        let squatted = Self.directory(owner: Self.attacker, mode: 0o777)
        let squatter = try Squatter(socket: squatted.path + "/vault.sock", record: squatted.path + "/received", user: Self.attacker)

        // Autostart on: it must not start anything over someone else's directory either.
        let result = try ProcessRunner.run(
            Self.bounded + Self.asUser(Self.victim) + [UnprivilegedUser.programs + "/vaultctl", "set", "svc", "acct"],
            environment: Self.victimEnvironment(vault, home: root.path, extra: ["VAULT_SOCKET": squatted.path + "/vault.sock"]),
            input: Array("canary-secret".utf8))
        #expect(result.status == 5, "\(result.stderr)")
        #expect(result.stderr.contains(squatted.path), "\(result.stderr)")
        #expect(result.stderr.contains("owned by uid \(Self.attacker)"), "\(result.stderr)")
        #expect(result.stderr.contains("nothing was sent"), "\(result.stderr)")
        #expect(squatter.received.isEmpty, "the squatter received \(squatter.received) bytes")
    }

    @Test(UnprivilegedUser.otherUIDs) func aListenerRunningAsAnotherUidGetsNothingEvenInTheUsersOwnDirectory() throws {
        let vault = VaultHarness()
        // The victim's own private directory, but the socket in it belongs to a process of uid 0.
        let private_ = Self.directory(owner: Self.victim, mode: 0o700)
        let records = TemporaryDirectory(prefix: "vault-trust-records")
        let squatter = try Squatter(socket: private_.path + "/vault.sock", record: records.path + "/received", user: nil)

        let result = try ProcessRunner.run(
            Self.bounded + Self.asUser(Self.victim) + [UnprivilegedUser.programs + "/vaultctl", "set", "svc", "acct"],
            environment: Self.victimEnvironment(vault, home: private_.path, extra: ["VAULT_SOCKET": private_.path + "/vault.sock"]),
            input: Array("canary-secret".utf8))
        #expect(result.status == 5, "\(result.stderr)")
        #expect(result.stderr.contains("runs as uid 0, not as you (uid \(Self.victim))"), "\(result.stderr)")
        // Connected (SO_PEERCRED needs a connection), then closed without a byte.
        #expect(squatter.received.allSatisfy { $0 == 0 }, "the listener received \(squatter.received) bytes")
    }

    // 2. Symlink swap.

    @Test func vaultdRefusesASocketDirectoryThatIsASymbolicLink() throws {
        let vault = VaultHarness()
        let real = vault.root + "/real"
        mkdir(real, 0o700)
        symlink(real, vault.root + "/run/vault")
        let result = try vault.run(Self.bounded + [VaultHarness.vaultd])
        #expect(result.status == 1, "\(result.stderr)")
        #expect(result.stderr.contains("\(vault.root)/run/vault is a symbolic link"), "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: real + "/vault.sock"))
    }

    @Test func clientsRefuseToConnectThroughASymbolicLink() throws {
        let vault = VaultHarness()
        _ = try vault.startDaemon()
        let link = vault.root + "/link"
        symlink(vault.root + "/run/vault", link)
        let result = try vault.ctl(["status"], environment: ["VAULT_SOCKET": link + "/vault.sock"], prefix: Self.bounded)
        #expect(result.status == 5, "\(result.stderr)")
        #expect(result.stderr.contains("\(link) is a symbolic link"), "\(result.stderr)")
        #expect(result.stderr.contains("nothing was sent"), "\(result.stderr)")
        #expect(try vault.ctl("status").status == 0)
    }

    // 3. Logs.

    @Test func anAutostartLogThatIsALinkIsNeitherFollowedNorWritten() throws {
        let vault = VaultHarness()
        mkdir(vault.root + "/run/vault", 0o700)
        let bashrc = vault.root + "/home/.bashrc"
        FileManager.default.createFile(atPath: bashrc, contents: Data("original\n".utf8), attributes: [.posixPermissions: 0o600])
        symlink(bashrc, vault.daemonLog)
        let result = try vault.ctl(["status"], prefix: Self.bounded)
        #expect(result.status == 5, "\(result.stderr)")
        #expect(result.stderr.contains("\(vault.daemonLog) is a symbolic link"), "\(result.stderr)")
        #expect(try String(contentsOfFile: bashrc, encoding: .utf8) == "original\n")
        #expect(vault.daemonPIDs().isEmpty)
    }

    @Test func anAutostartLogThatIsAFIFOIsRefusedWithoutHanging() throws {
        let vault = VaultHarness()
        mkdir(vault.root + "/run/vault", 0o700)
        mkfifo(vault.daemonLog, 0o600)
        let start = Date()
        let result = try vault.ctl(["status"], prefix: Self.bounded)
        #expect(result.status == 5, "\(result.stderr)")
        #expect(result.stderr.contains("\(vault.daemonLog) is a FIFO"), "\(result.stderr)")
        #expect(Date().timeIntervalSince(start) < 10)
        #expect(vault.daemonPIDs().isEmpty)
    }

    @Test func vaultdRefusesALogFileThatIsALinkOrAFIFO() throws {
        let vault = VaultHarness()
        let target = vault.root + "/home/.bashrc"
        FileManager.default.createFile(atPath: target, contents: Data("original\n".utf8), attributes: [.posixPermissions: 0o600])
        symlink(target, vault.root + "/link.log")
        mkfifo(vault.root + "/fifo.log", 0o600)
        for (log, found) in [(vault.root + "/link.log", "a symbolic link"), (vault.root + "/fifo.log", "a FIFO")] {
            let start = Date()
            let result = try vault.run(Self.bounded + [VaultHarness.vaultd, "--log-file", log])
            #expect(result.status == 1, "\(log): \(result.stderr)")
            #expect(result.stderr.contains("\(log) is \(found)"), "\(result.stderr)")
            #expect(Date().timeIntervalSince(start) < 10)
        }
        #expect(try String(contentsOfFile: target, encoding: .utf8) == "original\n")
        #expect(!FileManager.default.fileExists(atPath: vault.socketPath))
    }

    // 4. Relative PATH.

    @Test func autostartNeverRunsAVaultdFromTheCurrentDirectoryOrARelativePathEntry() throws {
        let vault = VaultHarness()
        // vaultctl away from vaultd, so only PATH can supply one.
        let alone = vault.root + "/alone"
        mkdir(alone, 0o700)
        try ExecutableFile.copy(VaultHarness.vaultctl, to: alone + "/vaultctl")
        let work = vault.root + "/work"
        mkdir(work, 0o700)
        mkdir(work + "/sub", 0o700)
        let marker = vault.root + "/planted-vaultd-ran"
        for planted in [work + "/vaultd", work + "/sub/vaultd"] {
            try ExecutableFile.write(Array("#!/bin/sh\necho ran >> \(marker)\n".utf8), to: planted)
        }
        let command = Self.bounded + ["/usr/bin/env", "-C", work, alone + "/vaultctl", "status"]

        let relativeOnly = try vault.run(command, environment: ["PATH": ".:sub:"])
        #expect(relativeOnly.status == 5, "\(relativeOnly.stderr)")
        #expect(relativeOnly.stderr.contains("no vaultd executable was found"), "\(relativeOnly.stderr)")
        #expect(!FileManager.default.fileExists(atPath: marker))

        let withAbsolute = try vault.run(command, environment: ["PATH": ".:sub:" + VaultHarness.binDirectory])
        #expect(withAbsolute.status == 0, "\(withAbsolute.stderr)")
        #expect(!FileManager.default.fileExists(atPath: marker))
    }
}
