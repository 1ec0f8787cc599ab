import Foundation
import Testing
import VaultCore
import VaultTestSupport
import VaultSystem

/// The user an attack test plays: an ordinary uid, never root. Run as root (CI), a harness made
/// with `VaultHarness(unprivileged: true)` runs vaultd, vaultctl, the attacker and the person's
/// approver all as a uid of its own through `setpriv`, with vault's programs and the fixtures
/// copied into a root-owned directory every uid can read (the checkout may sit in a 0700 home).
/// Run as an ordinary user, the harness already is one and changes nothing.
enum UnprivilegedUser {
    /// `nobody`, which every Debian has (dbus-daemon admits only uids with a passwd entry), else
    /// a uid apart from LocalTrustTests' (30000 to 49999); nil when this process is not root.
    static let uid: UInt32? = {
        guard geteuid() == 0 else { return nil }
        return getpwnam("nobody").map { $0.pointee.pw_uid } ?? UInt32(50_000 + Int(getpid()) % 10_000)
    }()

    /// For a test that runs programs as other uids, which only root can: reported skipped, with
    /// this reason, for an ordinary user.
    static var otherUIDs: ConditionTrait { .enabled(if: geteuid() == 0, "needs root: runs programs as other uids (setpriv)") }

    /// The command prefix that runs as `uid`, with no supplementary groups.
    static var prefix: [String] {
        uid.map { ["/usr/bin/setpriv", "--reuid=\($0)", "--regid=\($0)", "--clear-groups"] } ?? []
    }

    /// The programs other uids run, and the fixtures, once per test process.
    static let programs: String = {
        var template = Array("/tmp/vault-e2e-programs-XXXXXX".utf8CString)
        let directory = template.withUnsafeMutableBufferPointer { String(cString: mkdtemp($0.baseAddress!)) }
        chmod(directory, 0o755)
        for name in ["vaultd", "vaultctl", "git-credential-vault", "docker-credential-vault"] {
            try? ExecutableFile.copy(VaultHarness.binDirectory + "/" + name, to: directory + "/" + name, mode: 0o755)
        }
        let fixtures = PythonFixture.packageRoot + "/Tests/Fixtures"
        for name in (try? FileManager.default.contentsOfDirectory(atPath: fixtures)) ?? [] {
            try? ExecutableFile.copy(fixtures + "/" + name, to: directory + "/" + name, mode: 0o755)
        }
        atexit { UnprivilegedUser.removePrograms() }
        return directory
    }()

    /// A directory for `sys.path` holding pure-Python packages of the test venv (jeepney), where
    /// the uid can read them: the attacker's Python is the system's, its environment clean.
    static let pythonPackages: String = {
        let directory = programs + "/python"
        mkdir(directory, 0o755)
        let venv = PythonFixture.packageRoot + "/.venv/lib"
        for version in (try? FileManager.default.contentsOfDirectory(atPath: venv)) ?? [] where version.hasPrefix("python3") {
            try? FileManager.default.copyItem(atPath: venv + "/" + version + "/site-packages/jeepney", toPath: directory + "/jeepney")
        }
        return directory
    }()

    private static func removePrograms() {
        try? FileManager.default.removeItem(atPath: programs)
    }

    /// Hands `path` (and what is under it) to `uid`, as if that user had made it.
    static func own(_ path: String) {
        guard let uid else { return }
        chown(path, uid, uid)
        guard let enumerator = FileManager.default.enumerator(atPath: path) else { return }
        for case let name as String in enumerator { lchown(path + "/" + name, uid, uid) }
    }
}

@Suite struct UnprivilegedUserTests {
    /// What the attack suites rely on: run as root, a harness's programs run as another uid, which
    /// can reach vault's programs and the fixtures and owns the harness's directory.
    @Test func anUnprivilegedHarnessRunsItsProgramsAsAnOrdinaryUid() throws {
        let vault = VaultHarness(unprivileged: true)
        let uid = vault.user ?? geteuid()
        #expect(uid != 0)
        #expect(try vault.run(["/usr/bin/id", "-u"]).text == "\(uid)\n")
        #expect(try vault.ctl("set", "svc", "acct", input: "x").status == 0)
        #expect(try vault.run(["/usr/bin/python3", vault.fixture("vault_get.py"), vault.socketPath, "svc", "acct"]).text == "x\n")
        #expect(try FileStatus.of(vault.vaultFile)?.owner == uid)
    }
}
