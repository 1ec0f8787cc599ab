import Foundation
import Testing
import VaultCore

/// python/ (vault-keyring), installed by pip into a venv of its own, driven through the real
/// `keyring` command and pip, with no Secret Service (the harness has no session bus).
@Suite struct KeyringBackendTests {
    static let backend = "vault_keyring.VaultKeyring"

    @Test func theKeyringCommandRoundTripsThroughVault() throws {
        let vault = VaultHarness()
        try vault.startDaemon()
        let venv = try KeyringVenv(vault)

        let backends = try venv.keyring(["--list-backends"])
        #expect(backends.text.contains("\(Self.backend) (priority: 4)"), "chosen automatically: \(backends.text) \(backends.stderr)")

        let set = try venv.keyring(["set", "https://upload.example.org/legacy/", "__token__"], input: "pypi-secret-1\n")
        #expect(set.status == 0, "\(set.stderr)")
        #expect(try vault.ctl("get", "https://upload.example.org/legacy/", "__token__").text == "pypi-secret-1", "stored in vault, newline stripped")
        let get = try venv.keyring(["get", "https://upload.example.org/legacy/", "__token__"])
        #expect(get.status == 0 && get.text == "pypi-secret-1\n", "\(get.stderr)")

        // --mode creds without a username: the service's one credential.
        let creds = try venv.keyring(["--mode", "creds", "--output", "json", "get", "https://upload.example.org/legacy/"])
        let parsed = try JSONSerialization.jsonObject(with: Data(creds.stdout)) as? [String: String]
        #expect(parsed == ["username": "__token__", "password": "pypi-secret-1"], "\(creds.stderr)")
        try vault.ctl(["set", "https://upload.example.org/legacy/", "second"], input: Array("other".utf8))
        #expect(try venv.keyring(["--mode", "creds", "get", "https://upload.example.org/legacy/"]).status == 1, "two accounts: no guess")

        // An AWS item is not a password keyring may read or replace.
        #expect(try vault.ctl(["aws", "set", "dev"], input: Array(#"{"AccessKeyId":"AKIA1234567890ABCDEF","SecretAccessKey":"aws-secret-9"}"#.utf8)).status == 0)
        let aws = try venv.keyring(["get", "aws", "dev"])
        #expect(aws.status != 0 && aws.stderr.contains("aws credential-process") && !aws.stderr.contains("aws-secret-9"), "\(aws.stderr)")
        #expect(try venv.keyring(["set", "aws", "dev"], input: "x\n").status != 0)
        #expect(try vault.ctl("aws", "credential-process", "dev").text.contains("aws-secret-9"), "the AWS item is untouched")

        // A sign-in session answers with its fresh access token, not the stored session JSON.
        let server = try OAuthServer(vault)
        #expect(try server.login(vault).status == 0)
        let token = try venv.keyring(["get", "example", "alice"])
        let session = try JSONSerialization.jsonObject(with: Data(try vault.ctl("get", "example", "alice").stdout)) as? [String: Any]
        #expect(token.status == 0 && token.text == (session?["access_token"] as? String ?? "-") + "\n", "\(token.stderr)")

        #expect(try venv.keyring(["del", "https://upload.example.org/legacy/", "__token__"]).status == 0)
        #expect(try vault.ctl("get", "https://upload.example.org/legacy/", "__token__").status == 3)
        #expect(try venv.keyring(["get", "https://upload.example.org/legacy/", "__token__"]).status == 1, "missing: exit 1, like every backend")
        let again = try venv.keyring(["del", "https://upload.example.org/legacy/", "__token__"])
        #expect(again.status != 0 && again.stderr.contains("PasswordDeleteError: no password for"), "\(again.stderr)")
    }

    @Test func pointedAtARemotePathPasswordsLiveInTheTeamsEngine() throws {
        let vault = VaultHarness()
        try vault.startDaemon()
        let bao = try OpenBaoServer(in: vault.root + "/bao")
        #expect(try vault.ctl(["remote", "add", "team", "--url", bao.address, "--auth", "token"], input: Array("root".utf8)).status == 0)
        let venv = try KeyringVenv(vault)
        let remote = ["VAULT_KEYRING_REMOTE": "team/keyring"]
        let set = try venv.keyring(["set", "https://upload.example.org/legacy/", "__token__"], input: "pypi-remote\n", environment: remote)
        #expect(set.status == 0, "\(set.stderr)")
        // In the engine, under the folder, the service and username one segment each.
        let listed = try bao.must("kv", "list", "-mount=secret", "-format=json", "keyring/")
        #expect(listed.contains("https%3A%2F%2Fupload.example.org%2Flegacy%2F/"), "\(listed)")
        #expect(try venv.keyring(["get", "https://upload.example.org/legacy/", "__token__"], environment: remote).text == "pypi-remote\n")
        let creds = try venv.keyring(["--mode", "creds", "--output", "json", "get", "https://upload.example.org/legacy/"], environment: remote)
        #expect((try? JSONSerialization.jsonObject(with: Data(creds.stdout)) as? [String: String]) == ["username": "__token__", "password": "pypi-remote"], "\(creds.stderr)")
        // Not a local item; gone from the engine's latest version after del.
        #expect(try vault.ctl("get", "https://upload.example.org/legacy/", "__token__").status == 3)
        #expect(try venv.keyring(["del", "https://upload.example.org/legacy/", "__token__"], environment: remote).status == 0)
        #expect(try venv.keyring(["get", "https://upload.example.org/legacy/", "__token__"], environment: remote).status == 1)
    }

    @Test func aLockedVaultOrNoDaemonSaysWhatToDo() throws {
        let vault = VaultHarness(passphraseFile: false)
        try vault.startDaemon()
        let venv = try KeyringVenv(vault)
        // A read finds no password and says why in one line, not at the end of a traceback.
        let locked = try venv.keyring(["get", "svc", "alice"])
        #expect(locked.status == 1 && locked.stderr.contains("vault is locked") && locked.stderr.contains("vaultctl unlock"), "\(locked.stderr)")
        #expect(!locked.stderr.contains("Traceback") && locked.stderr.split(separator: "\n").count == 1, "\(locked.stderr)")
        #expect(try venv.keyring(["set", "svc", "alice"], input: "pw\n").stderr.contains("vaultctl unlock"))

        // No daemon: not chosen automatically, and forced, it says how to start one (and starts none).
        let elsewhere = ["VAULT_SOCKET": vault.root + "/nowhere/vault.sock"]
        #expect(try !venv.keyring(["--list-backends"], environment: elsewhere).text.contains(Self.backend))
        let forced = try venv.keyring(["get", "svc", "alice"], environment: elsewhere.merging(["PYTHON_KEYRING_BACKEND": Self.backend]) { $1 })
        #expect(forced.status == 1 && forced.stderr.contains("vaultd is not running") && forced.stderr.contains("vaultctl status"), "\(forced.stderr)")
        #expect(!forced.stderr.contains("Traceback") && forced.stderr.split(separator: "\n").count == 1, "\(forced.stderr)")
        #expect(!FileManager.default.fileExists(atPath: vault.root + "/nowhere"))
    }

    @Test func aSquattedSocketIsRefusedBeforeAnythingIsSent() throws {
        let vault = VaultHarness()
        let venv = try KeyringVenv(vault)
        let attacker = LocalTrustTests.attacker

        // A socket directory that belongs to another user.
        let theirs = LocalTrustTests.directory(owner: attacker, mode: 0o700)
        let squatter = try LocalTrustTests.Squatter(socket: theirs.path + "/vault.sock", record: theirs.path + "/received", user: attacker)
        let socket = ["VAULT_SOCKET": theirs.path + "/vault.sock"]
        #expect(try !venv.keyring(["--list-backends"], environment: socket).text.contains(Self.backend))
        let refused = try venv.keyring(["-b", Self.backend, "set", "svc", "alice"], input: "canary-secret\n", environment: socket)
        #expect(refused.status != 0 && refused.stderr.contains("belongs to another user") && refused.stderr.contains("nothing was sent"), "\(refused.stderr)")
        #expect(squatter.received.isEmpty, "the squatter was connected to: \(squatter.received)")

        // Our own private directory, but the socket in it is another uid's listener (moved in).
        let ours = LocalTrustTests.directory(owner: getuid(), mode: 0o700)
        let records = LocalTrustTests.directory(owner: attacker, mode: 0o700)
        let listener = try LocalTrustTests.Squatter(socket: records.path + "/vault.sock", record: records.path + "/received", user: attacker)
        #expect(rename(records.path + "/vault.sock", ours.path + "/vault.sock") == 0)
        let moved = ["VAULT_SOCKET": ours.path + "/vault.sock"]
        #expect(try !venv.keyring(["--list-backends"], environment: moved).text.contains(Self.backend))
        let wrongPeer = try venv.keyring(["-b", Self.backend, "set", "svc", "alice"], input: "canary-secret\n", environment: moved)
        #expect(wrongPeer.status != 0 && wrongPeer.stderr.contains("runs as uid \(attacker), not as you"), "\(wrongPeer.stderr)")
        #expect(!wrongPeer.stderr.contains("canary-secret"))
        #expect(!listener.received.isEmpty && listener.received.allSatisfy { $0 == 0 }, "connected, then closed without a byte: \(listener.received)")
    }

    @Test func pipInstallsFromAnIndexThatNeedsAuthenticationWithCredentialsFromVault() throws {
        let vault = VaultHarness()
        try vault.startDaemon()
        let venv = try KeyringVenv(vault)
        let index = try PythonFixture("pypi_server.py", in: vault)
        let host = "127.0.0.1:\(index.info["port"] as? Int ?? 0)"
        func install(_ provider: String) throws -> ProcessRunner.Result {
            let target = vault.root + "/target-\(provider)"
            return try venv.run(["-m", "pip", "install", "--no-cache-dir", "--disable-pip-version-check", "--index-url", "http://\(host)/simple/",
                                 "--keyring-provider", provider, "--target", target, "vault-test-pkg"])
        }

        // Nothing in vault yet: pip gets 401s and finds no credential.
        let without = try install("import")
        #expect(without.status != 0)
        #expect(try index.counts("/__count")["authorized"] == 0)

        let password = try String(contentsOfFile: vault.root + "/pypi_server.py/password", encoding: .utf8)
        #expect(try vault.ctl([ "set", host, "alice"], input: Array(password.utf8)).status == 0)
        for provider in ["import", "subprocess"] {
            let result = try install(provider)
            #expect(result.status == 0, "\(provider): \(result.stderr)")
            #expect(FileManager.default.fileExists(atPath: vault.root + "/target-\(provider)/vault_test_pkg/__init__.py"), "\(provider)")
            #expect(!result.text.contains(password) && !result.stderr.contains(password))
        }
        #expect(try index.counts("/__count")["authorized"] ?? 0 >= 2)
    }
}
