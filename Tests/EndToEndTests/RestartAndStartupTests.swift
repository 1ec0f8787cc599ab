import Foundation
import Testing
import VaultCore
import VaultSystem

/// What a user chose survives a restart, and what stops vaultd from starting is said at once
/// (issue 12, items 4 to 6). The quick start across a restart is checked by
/// scripts/check-quickstart, which the test command runs before these tests.
@Suite struct RestartAndStartupTests {
    func writeConfig(_ vault: VaultHarness, _ text: String, mode: Int = 0o600) throws {
        try FileManager.default.createDirectory(atPath: FileSystem.parentDirectory(of: vault.configFile), withIntermediateDirectories: true)
        FileManager.default.createFile(atPath: vault.configFile, contents: Data(text.utf8), attributes: [.posixPermissions: mode])
    }

    @Test func theConfigurationFileIsReadByAnAutostartedVaultdAfterARestart() throws {
        let vault = VaultHarness(passphraseFile: false)
        vault.environment["VAULT_BACKEND"] = nil
        try writeConfig(vault, "backend = file\npassphrase-file = \(vault.root)/passphrase\n")
        #expect(try vault.ctl("set", "svc", "acct", input: "kept").status == 0)
        vault.stopDaemons()
        // No VAULT_ variable at all: the file says which store and where the passphrase is.
        let got = try vault.ctl("get", "svc", "acct")
        #expect(got.status == 0, "\(got.stderr)")
        #expect(got.stdout == Array("kept".utf8))
        let status = try vault.ctl("status").text
        #expect(status.contains("backend in \(vault.configFile)"))
        // The environment overrides the file.
        vault.stopDaemons()
        let overridden = try vault.ctl(["status", "--json"], environment: ["VAULT_PASSPHRASE_FILE": vault.root + "/nothing-here"])
        #expect(overridden.text.contains(#""locked":true"#))
        #expect(overridden.text.contains("nothing-here"))
    }

    @Test func aStartUpErrorIsRelayedAtOnce() throws {
        for (environment, reason) in [(["VAULT_BACKEND": "bogus"], "unknown backend 'bogus'"),
                                      (["VAULT_KDF_LOG2N": ""], "VAULT_KDF_LOG2N must be a number")] {
            let vault = VaultHarness()
            let started = Date()
            let result = try vault.ctl(["get", "a", "b"], environment: environment)
            let elapsed = Date().timeIntervalSince(started)
            #expect(result.status == 5)
            #expect(result.stderr.contains("exited at start: \(reason)"), "\(result.stderr)")
            #expect(result.stderr.contains(vault.daemonLog))
            // The issue's bound: about a second, not the 10 s autostart deadline.
            #expect(elapsed < 2, "took \(elapsed) s")
        }
        // A broken configuration file, likewise.
        let vault = VaultHarness()
        try writeConfig(vault, "backend = file\nbakend = auto\n")
        let result = try vault.ctl("list")
        #expect(result.status == 5)
        #expect(result.stderr.contains("\(vault.configFile), line 2: unknown setting 'bakend'"), "\(result.stderr)")
    }

    @Test func aRunningVaultdOnAnotherStoreIsNamedOnce() throws {
        let vault = VaultHarness()
        #expect(try vault.ctl("set", "s", "a", input: "x").status == 0)
        let mismatch = try vault.ctl(["get", "s", "a"], environment: ["VAULT_BACKEND": "secret-service"])
        #expect(mismatch.status == 0 && mismatch.stdout == Array("x".utf8))
        #expect(mismatch.stderr.components(separatedBy: "warning:").count == 2)
        #expect(mismatch.stderr.contains("VAULT_BACKEND asks for the secret-service store, but the vaultd running"))
        #expect(mismatch.stderr.contains("serves the file store"))
        // The same store, or auto: nothing said.
        #expect(try vault.ctl("get", "s", "a").stderr.isEmpty)
        #expect(try vault.ctl(["get", "s", "a"], environment: ["VAULT_BACKEND": "auto"]).stderr.isEmpty)
    }

    @Test func aLockedAnswerNamesThePassphraseFilesProblemAndTheFix() throws {
        let vault = VaultHarness()
        let file = vault.root + "/passphrase"
        #expect(try vault.ctl("set", "s", "a", input: "secret").status == 0)

        // Readable by others: refused, and `get` says why and which chmod fixes it.
        vault.stopDaemons()
        chmod(file, 0o644)
        let loose = try vault.ctl("get", "s", "a")
        #expect(loose.status == 4)
        #expect(loose.stderr.contains("readable by others (mode 644)"), "\(loose.stderr)")
        #expect(loose.stderr.contains("chmod 600 \(file)"))
        #expect(!loose.stderr.contains("set VAULT_PASSPHRASE_FILE"))
        // Fixed: the next request tries the file again, without a restart or an unlock.
        chmod(file, 0o600)
        #expect(try vault.ctl("get", "s", "a").stdout == Array("secret".utf8))

        // Missing: named, with what to do.
        vault.stopDaemons()
        let missing = try vault.ctl(["get", "s", "a"], environment: ["VAULT_PASSPHRASE_FILE": vault.root + "/gone"])
        #expect(missing.status == 4)
        #expect(missing.stderr.contains("cannot read the passphrase file \(vault.root)/gone"), "\(missing.stderr)")
        #expect(missing.stderr.contains("create it (mode 0600)"))

        // Someone else's: refused.
        vault.stopDaemons()
        chown(file, 4242, 4242)
        let foreign = try vault.ctl("get", "s", "a")
        #expect(foreign.status == 4)
        #expect(foreign.stderr.contains("belongs to uid 4242, not to you"), "\(foreign.stderr)")
        // None of it ever prints the passphrase.
        for result in [loose, missing, foreign] { #expect(!result.stderr.contains(vault.passphrase)) }
    }

    @Test func autoNeverHidesAVaultFileThatHoldsItems() throws {
        let vault = VaultHarness(passphraseFile: false)
        let keyring = try PrivateKeyring(vault)
        _ = keyring
        // An empty or missing vault file: auto picks the Secret Service, as before.
        #expect(try vault.ctl("status").text.contains("store:  secret-service"))
        vault.stopDaemons()
        // A vault file with items (made by the file store): auto keeps using it.
        let fileStore = ["VAULT_BACKEND": "file", "VAULT_PASSPHRASE_FILE": vault.root + "/passphrase"]
        #expect(try vault.ctl(["set", "mine", "kept"], input: Array("in the file".utf8), environment: fileStore).status == 0)
        vault.stopDaemons()
        let status = try vault.ctl("status").text
        #expect(status.contains("store:  file"), "\(status)")
        // Three: the item, and vault's own audit key and audit chain heads (written when vaultd
        // stopped; the file's header cannot tell them apart, locked).
        #expect(status.contains("holds 3 item(s), so the file store is used even if a Secret Service answers"), "\(status)")
        let doctor = try vault.ctl("doctor").text
        #expect(doctor.contains("auto never hides a vault that holds items"))
    }
}
