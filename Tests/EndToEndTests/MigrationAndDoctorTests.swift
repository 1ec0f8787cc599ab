import Foundation
import Testing
import VaultCore

@Suite struct MigrationAndDoctorTests {
    @Test func doctorExplainsBothStoresAndExitsZeroOnlyWhenTheStoreInUseWorks() throws {
        let vault = VaultHarness(passphraseFile: false)
        let keyring = try PrivateKeyring(vault)
        _ = keyring
        let healthy = try vault.ctl("doctor")
        #expect(healthy.status == 0, "\(healthy.text)")
        #expect(healthy.text.contains("store in use: secret-service"))
        #expect(healthy.text.contains("ok   write, read, delete: a probe item was written"))
        #expect(healthy.text.contains("Encrypted file store"))
        #expect(try vault.ctl("list").text.isEmpty, "the probe item must not stay behind")
        try vault.ctl("lock")
        let locked = try vault.ctl("doctor")
        #expect(locked.status == 1 && locked.text.contains("FAIL unlocked"), "\(locked.text)")

        // No bus, and a locked file store: both sections say what is wrong.
        let bare = VaultHarness(passphraseFile: false)
        bare.environment["VAULT_BACKEND"] = "auto"
        let broken = try bare.ctl("doctor")
        #expect(broken.status == 1)
        #expect(broken.text.contains("FAIL session bus: there is no session bus"))
        #expect(broken.text.contains("FAIL unlocked: locked: run 'vaultctl unlock'"))
        #expect(try bare.ctl("unlock", input: "a passphrase\n").status == 0)
        let fixed = try JSONSerialization.jsonObject(with: Data(try bare.ctl("doctor", "--json").stdout)) as? [String: Any]
        #expect(fixed?["selected"] as? String == "file")
        #expect(fixed?["selected_works"] as? Bool == true)
    }

    @Test func migrationMovesEveryItemBothWays() throws {
        let vault = VaultHarness(passphraseFile: false)
        let keyring = try PrivateKeyring(vault)
        let binary: [UInt8] = [0, 1, 0xff, 0xfe]
        for index in 0..<12 { try vault.ctl("set", "mig", "item-\(index)", "--label", "Item \(index)", input: "secret-\(index)") }
        try vault.ctl(["set", "mig", "binary", "--raw"], input: binary)
        // Another tool's item with an attribute of its own, which must survive both moves.
        #expect(try keyring.secretTool(["store", "--label=gh", "service", "gh:github.com", "username", "octocat", "application", "gh"], input: "gho_token").status == 0)

        let toFile = try vault.ctl(["migrate", "--to", "file", "--json"], input: Array("file passphrase\n".utf8))
        #expect(toFile.status == 0, "\(toFile.stderr)")
        let report = try JSONSerialization.jsonObject(with: Data(toFile.stdout)) as? [String: Any]
        #expect(report?["copied"] as? Int == 14 && report?["removed"] as? Int == 14)
        // The file holds it with its attribute (read by the independent decryptor).
        let passphrase = vault.root + "/file-passphrase"
        FileManager.default.createFile(atPath: passphrase, contents: Data("file passphrase\n".utf8), attributes: [.posixPermissions: 0o600])
        let decrypted = try vault.run([SecretServiceTests.packageRoot + "/.venv/bin/python", SecretServiceTests.packageRoot + "/scripts/decrypt-vault.py", vault.vaultFile, passphrase])
        let items = try JSONSerialization.jsonObject(with: Data(decrypted.stdout)) as? [[String: Any]] ?? []
        let gh = items.first { $0["service"] as? String == "gh:github.com" }
        #expect((gh?["attributes"] as? [String: String])?["application"] == "gh", "\(decrypted.stderr)")
        #expect(try vault.ctl("get", "gh:github.com", "octocat").text == "gho_token")
        let status = try JSONSerialization.jsonObject(with: Data(try vault.ctl("status", "--json").stdout)) as? [String: Any]
        #expect(status?["backend"] as? String == "file")
        for index in 0..<12 {
            #expect(try vault.ctl("get", "mig", "item-\(index)").stdout == Array("secret-\(index)".utf8))
            #expect(try keyring.secretTool(["lookup", "service", "mig", "username", "item-\(index)"]).status != 0)
        }
        #expect(try vault.ctl("get", "mig", "binary").stdout == binary)
        #expect(try vault.ctl("list", "--json").text.contains(#""label":"Item 3""#))

        let back = try vault.ctl("migrate", "--to", "secret-service")
        #expect(back.status == 0, "\(back.stderr)")
        for index in 0..<12 {
            #expect(try keyring.secretTool(["lookup", "service", "mig", "username", "item-\(index)"]).text == "secret-\(index)")
        }
        #expect(try vault.ctl("get", "mig", "binary").stdout == binary)
        #expect(try keyring.secretTool(["lookup", "application", "gh"]).text == "gho_token")
        #expect(try vault.ctl("migrate", "--to", "secret-service").status == 2)
    }

    /// vaultd is SIGKILLed in the middle of copying, then in the middle of removing originals.
    /// After each kill every item is still readable from one store or the other, and running
    /// the migration again finishes it.
    @Test(arguments: ["copied 10 of", "removed 10 of"])
    func anInterruptedMigrationLosesNothingAndARerunCompletesIt(_ killPoint: String) throws {
        let vault = VaultHarness(passphraseFile: false)
        let keyring = try PrivateKeyring(vault)
        let count = 40
        for index in 0..<count { try vault.ctl("set", "mig", "item-\(index)", input: "secret-\(index)") }
        let filePassphrase = vault.root + "/file-passphrase"
        FileManager.default.createFile(atPath: filePassphrase, contents: Data("file passphrase\n".utf8), attributes: [.posixPermissions: 0o600])

        let migration = Process()
        migration.executableURL = URL(fileURLWithPath: VaultHarness.vaultctl)
        migration.arguments = ["migrate", "--to", "file"]
        migration.environment = vault.environment
        migration.standardInput = FileHandle(forReadingAtPath: filePassphrase)
        migration.standardOutput = FileHandle.nullDevice
        migration.standardError = FileHandle.nullDevice
        try migration.run()
        var killed = false
        for _ in 0..<2000 {
            if ((try? String(contentsOfFile: vault.daemonLog, encoding: .utf8)) ?? "").contains("migrate: \(killPoint)") {
                let pids = vault.daemonPIDs()
                for pid in pids { kill(pid, SIGKILL) }
                killed = !pids.isEmpty
                break
            }
            usleep(2_000)
        }
        migration.waitUntilExit()
        #expect(killed, "the migration finished before it could be interrupted")
        #expect(migration.terminationStatus != 0)
        for _ in 0..<200 where !vault.daemonPIDs().isEmpty { usleep(10_000) }

        // Nothing lost: each item is in the keyring, or (once removed there) in the file store.
        var inKeyring = 0
        for index in 0..<count {
            if try keyring.secretTool(["lookup", "service", "mig", "username", "item-\(index)"]).text == "secret-\(index)" { inKeyring += 1 }
        }
        // (Removed some, not all: how many more went between the log line and the kill depends on
        // the machine's load; a CI run under load saw more than 12.)
        if killPoint.hasPrefix("copied") { #expect(inKeyring == count) } else { #expect(inKeyring <= count - 10 && inKeyring > 0, "\(inKeyring) left") }

        // The restarted vaultd (auto: the file store, which now holds items) finishes the job:
        // it moves what the keyring still holds into the store it serves from.
        let rerun = try vault.ctl(["migrate", "--to", "file", "--json"], input: Array("file passphrase\n".utf8))
        #expect(rerun.status == 0, "\(rerun.stderr)")
        let report = try JSONSerialization.jsonObject(with: Data(rerun.stdout)) as? [String: Any]
        #expect((report?["conflicts"] as? [Any])?.isEmpty == true)
        for index in 0..<count {
            #expect(try vault.ctl("get", "mig", "item-\(index)").stdout == Array("secret-\(index)".utf8), "item-\(index)")
            #expect(try keyring.secretTool(["lookup", "service", "mig", "username", "item-\(index)"]).status != 0)
        }
    }
}
