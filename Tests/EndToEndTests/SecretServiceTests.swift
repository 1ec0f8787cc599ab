import Foundation
import Testing
import VaultCore

/// A private D-Bus session bus with a real GNOME Keyring on it, for one test. The bus has no
/// service directories unless a test gives one, so nothing is D-Bus-activated behind its back.
final class PrivateKeyring: @unchecked Sendable {
    let vault: VaultHarness
    let busAddress: String
    private(set) var busPID: pid_t = 0
    private(set) var keyringPID: pid_t = 0

    /// `serviceDirectory`: a directory of D-Bus activation files the bus uses (none by default).
    init(_ vault: VaultHarness, startKeyring: Bool = true, serviceDirectory: String? = nil) throws {
        self.vault = vault
        let socket = vault.root + "/bus"
        busAddress = "unix:path=" + socket
        let config = """
            <!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
             "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
            <busconfig>
              <type>session</type>
              <listen>\(busAddress)</listen>
              <auth>EXTERNAL</auth>
            \(serviceDirectory.map { "  <servicedir>\($0)</servicedir>" } ?? "")
              <policy context="default">
                <allow send_destination="*" eavesdrop="true"/>
                <allow eavesdrop="true"/>
                <allow own="*"/>
              </policy>
            </busconfig>
            """
        try config.write(toFile: vault.root + "/bus.conf", atomically: true, encoding: .utf8)
        busPID = try vault.spawnDirectly(["/usr/bin/dbus-daemon", "--config-file=" + vault.root + "/bus.conf", "--nofork", "--nopidfile"])
        for _ in 0..<3000 where !FileManager.default.fileExists(atPath: socket) { usleep(10_000) }
        vault.environment["DBUS_SESSION_BUS_ADDRESS"] = busAddress
        vault.environment["HOME"] = vault.root + "/home"
        vault.environment["VAULT_BACKEND"] = "auto"
        vault.environment["VAULT_SECRET_SERVICE_TIMEOUT"] = "2"
        FileManager.default.createFile(atPath: vault.root + "/keyring-password", contents: Data("keyring pw".utf8))
        if startKeyring { try self.startKeyring() }
    }

    /// Starts gnome-keyring-daemon (secrets only, unlocked with a password on stdin) and waits
    /// until it owns org.freedesktop.secrets.
    func startKeyring() throws {
        keyringPID = try vault.spawnDirectly(
            ["/usr/bin/gnome-keyring-daemon", "--foreground", "--unlock", "--components=secrets"],
            stdinPath: vault.root + "/keyring-password", logPath: vault.root + "/keyring.log")
        for _ in 0..<500 {
            let owner = try vault.run(["/usr/bin/dbus-send", "--session", "--print-reply", "--dest=org.freedesktop.DBus", "/org/freedesktop/DBus",
                                       "org.freedesktop.DBus.NameHasOwner", "string:org.freedesktop.secrets"])
            if owner.text.contains("boolean true") { return }
            usleep(20_000)
        }
        throw VaultError.unavailable("gnome-keyring-daemon did not start: \((try? String(contentsOfFile: vault.root + "/keyring.log", encoding: .utf8)) ?? "")")
    }

    func signalKeyring(_ signal: Int32) {
        kill(keyringPID, signal)
        if signal == SIGKILL {
            var status: Int32 = 0
            waitpid(keyringPID, &status, 0)
        }
    }

    deinit {
        vault.stopDaemons()
        for pid in [keyringPID, busPID] where pid > 0 {
            kill(pid, SIGCONT)
            kill(pid, SIGKILL)
            var status: Int32 = 0
            waitpid(pid, &status, 0)
        }
    }

    func secretTool(_ arguments: [String], input: String = "") throws -> VaultHarness.Result {
        try vault.run(["/usr/bin/secret-tool"] + arguments, input: Array(input.utf8))
    }

    /// Python from the test venv (keyring, secretstorage), `arguments` as sys.argv[1...].
    func python(_ code: String, arguments: [String] = []) throws -> VaultHarness.Result {
        try vault.run([SecretServiceTests.packageRoot + "/.venv/bin/python", "-c", code] + arguments)
    }

    func pythonKeyring(_ code: String) throws -> VaultHarness.Result {
        try vault.run([SecretServiceTests.packageRoot + "/.venv/bin/python", "-c", "import keyring\n" + code],
                      environment: ["PYTHON_KEYRING_BACKEND": "keyring.backends.SecretService.Keyring"])
    }
}

@Suite struct SecretServiceTests {
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path

    func status(_ vault: VaultHarness) throws -> [String: Any] {
        try JSONSerialization.jsonObject(with: Data(try vault.ctl("status", "--json").stdout)) as? [String: Any] ?? [:]
    }

    @Test func textAndBinarySecretsRoundTripThroughGnomeKeyring() throws {
        let vault = VaultHarness(passphraseFile: false)
        let keyring = try PrivateKeyring(vault)
        _ = keyring
        let state = try status(vault)
        #expect(state["backend"] as? String == "secret-service")
        #expect((state["backend_reason"] as? String)?.contains("answered on the session bus") == true)
        #expect(try vault.ctl("set", "svc", "text", "--label", "Text item", "--comment", "c1", input: "pässwörd\n").status == 0)
        #expect(try vault.ctl("get", "svc", "text").stdout == Array("pässwörd".utf8))
        let binary: [UInt8] = [0, 0xff, 0xfe, 0x00, 0x80, 0x7f, 10, 13]
        #expect(try vault.ctl(["set", "svc", "binary", "--raw"], input: binary).status == 0)
        #expect(try vault.ctl(["get", "svc", "binary"]).stdout == binary)
        #expect(try vault.ctl("add", "svc", "text", input: "x").status == 6)
        let json = try JSONSerialization.jsonObject(with: Data(try vault.ctl("get", "svc", "text", "--json").stdout)) as? [String: Any]
        #expect(json?["label"] as? String == "Text item")
        #expect(json?["comment"] as? String == "c1")
        #expect(try vault.ctl("set", "svc", "text", input: "second").status == 0)
        #expect(try vault.ctl("get", "svc", "text").stdout == Array("second".utf8))
        #expect(try vault.ctl("list").text.split(separator: "\n").map { $0.split(separator: "\t").prefix(2).joined(separator: "/") } == ["svc/binary", "svc/text"])
        #expect(try vault.ctl("delete", "svc", "binary").status == 0)
        #expect(try vault.ctl("get", "svc", "binary").status == 3)
    }

    @Test func itemsAreSharedWithSecretToolBothWays() throws {
        let vault = VaultHarness(passphraseFile: false)
        let keyring = try PrivateKeyring(vault)
        #expect(try vault.ctl("set", "github.com", "octocat", input: "from-vault").status == 0)
        #expect(try keyring.secretTool(["lookup", "service", "github.com", "username", "octocat"]).text == "from-vault")

        #expect(try keyring.secretTool(["store", "--label=Made by secret-tool", "service", "registry", "username", "bob"], input: "from-secret-tool").status == 0)
        #expect(try vault.ctl("get", "registry", "bob").stdout == Array("from-secret-tool".utf8))
        let listed = try vault.ctl("list", "registry", "--json")
        #expect(listed.text.contains(#""label":"Made by secret-tool""#))
        #expect(try vault.ctl("set", "registry", "bob", input: "updated by vault").status == 0)
        #expect(try keyring.secretTool(["lookup", "service", "registry", "username", "bob"]).text == "updated by vault")
        #expect(try vault.ctl("delete", "registry", "bob").status == 0)
        #expect(try keyring.secretTool(["lookup", "service", "registry", "username", "bob"]).status != 0)
    }

    @Test func itemsAreSharedWithPythonKeyringBothWays() throws {
        let vault = VaultHarness(passphraseFile: false)
        let keyring = try PrivateKeyring(vault)
        let stored = try keyring.pythonKeyring("keyring.set_password('pypi', 'alice', 'from-python')")
        #expect(stored.status == 0, "\(stored.stderr)")
        #expect(try vault.ctl("get", "pypi", "alice").stdout == Array("from-python".utf8))
        #expect(try vault.ctl("set", "pypi", "carol", input: "from-vault").status == 0)
        let read = try keyring.pythonKeyring("print(keyring.get_password('pypi', 'carol'), end='')")
        #expect(read.text == "from-vault", "\(read.stderr)")
        #expect(try vault.ctl("delete", "pypi", "alice").status == 0)
        #expect(try keyring.pythonKeyring("print(keyring.get_password('pypi', 'alice'), end='')").text == "None")
    }

    @Test func aLockedCollectionIsExplainedAndUnlockFailsFastWithoutADisplay() throws {
        let vault = VaultHarness(passphraseFile: false)
        let keyring = try PrivateKeyring(vault)
        _ = keyring
        #expect(try vault.ctl("set", "svc", "acct", input: "x").status == 0)
        #expect(try vault.ctl("lock").status == 0)
        #expect(try status(vault)["locked"] as? Bool == true)
        let locked = try vault.ctl("get", "svc", "acct")
        #expect(locked.status == 4 && locked.stderr.contains("vaultctl unlock"), "\(locked.stderr)")
        let lockedWrite = try vault.ctl("set", "svc", "other", input: "y")
        #expect(lockedWrite.status == 4, "\(lockedWrite.status) \(lockedWrite.stderr)")
        let start = Date()
        let unlock = try vault.ctl("unlock")
        #expect(unlock.status == 4, "\(unlock.stderr)")
        #expect(unlock.stderr.contains("VAULT_BACKEND=file") || unlock.stderr.contains("prompt"), "\(unlock.stderr)")
        #expect(Date().timeIntervalSince(start) < 10)
    }

    @Test func aHungOrKilledKeyringFailsWithinTheTimeoutAndVaultdRecovers() throws {
        let vault = VaultHarness(passphraseFile: false)
        let keyring = try PrivateKeyring(vault)
        #expect(try vault.ctl("set", "svc", "acct", input: "survives").status == 0)

        // Hung: the provider stops answering. A request fails within the 2 s timeout: its later
        // calls (the audit record's key and chain head) fail at once instead of waiting again,
        // and so does a call that waited its turn behind a background call that timed out.
        keyring.signalKeyring(SIGSTOP)
        var start = Date()
        let hung = try vault.ctl("get", "svc", "acct")
        #expect(hung.status == 5 && hung.stderr.contains("did not answer"), "\(hung.stderr)")
        #expect(Date().timeIntervalSince(start) < 3.9)
        keyring.signalKeyring(SIGCONT)
        #expect(try vault.ctl("get", "svc", "acct").stdout == Array("survives".utf8))

        // Killed: requests fail promptly; once a keyring is back, vaultd serves again.
        keyring.signalKeyring(SIGKILL)
        start = Date()
        let gone = try vault.ctl("get", "svc", "acct")
        #expect(gone.status == 5, "\(gone.stderr)")
        #expect(Date().timeIntervalSince(start) < 8)
        #expect(vault.daemonPIDs().count == 1, "vaultd must keep running")
        try keyring.startKeyring()
        #expect(try vault.ctl("set", "svc", "after", input: "restart").status == 0)
        #expect(try vault.ctl("get", "svc", "after").stdout == Array("restart".utf8))
    }

    @Test func autoChoosesTheFileStoreWithoutABusOrWithoutAService() throws {
        let noBus = VaultHarness()
        noBus.environment["VAULT_BACKEND"] = "auto"
        noBus.environment["DBUS_SESSION_BUS_ADDRESS"] = nil
        var state = try status(noBus)
        #expect(state["backend"] as? String == "file")
        #expect((state["backend_reason"] as? String)?.contains("no session bus") == true)
        #expect(try noBus.ctl("status").text.contains("why:    auto: there is no session bus"))

        let busOnly = VaultHarness()
        let bus = try PrivateKeyring(busOnly, startKeyring: false)
        _ = bus
        busOnly.environment["VAULT_PASSPHRASE_FILE"] = busOnly.root + "/passphrase"
        state = try status(busOnly)
        #expect(state["backend"] as? String == "file")
        #expect((state["backend_reason"] as? String)?.contains("no usable Secret Service") == true, "\(state)")
        #expect(try busOnly.ctl("set", "a", "b", input: "file store").status == 0)

        // Asked for explicitly, an absent Secret Service is an explained error, not a fallback.
        let explicit = VaultHarness(passphraseFile: false)
        let explicitBus = try PrivateKeyring(explicit, startKeyring: false)
        _ = explicitBus
        explicit.environment["VAULT_BACKEND"] = "secret-service"
        let refused = try explicit.ctl("get", "a", "b")
        #expect(refused.status == 5 && refused.stderr.contains("no Secret Service"), "\(refused.stderr)")
    }
}
