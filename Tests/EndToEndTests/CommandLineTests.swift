import Foundation
import Testing
import VaultCore

/// vaultctl against a real vaultd (autostarted from the build directory).
@Suite struct CommandLineTests {
    @Test func textSecretsRoundTripWithOneNewlineStripped() throws {
        let vault = VaultHarness()
        #expect(try vault.ctl("set", "github.com", "octocat", "--label", "GitHub", "--comment", "PAT", input: "ghp_secret\n").status == 0)
        let got = try vault.ctl("get", "github.com", "octocat")
        #expect(got.status == 0)
        // Not a terminal: exactly the bytes, no newline added.
        #expect(got.stdout == Array("ghp_secret".utf8))
        #expect(try vault.ctl("set", "raw", "kept", "--raw", input: "two newlines\n\n").status == 0)
        #expect(try vault.ctl("get", "raw", "kept").stdout == Array("two newlines\n\n".utf8))
        #expect(try vault.ctl("set", "stripped", "one", input: "two newlines\n\n").status == 0)
        #expect(try vault.ctl("get", "stripped", "one").stdout == Array("two newlines\n".utf8))

        let json = try JSONSerialization.jsonObject(with: Data(try vault.ctl("get", "github.com", "octocat", "--json").stdout)) as? [String: Any]
        #expect(json?["secret"] as? String == "ghp_secret")
        #expect(json?["label"] as? String == "GitHub")
        #expect(json?["comment"] as? String == "PAT")
        #expect((json?["created"] as? String)?.hasSuffix("Z") == true)
    }

    @Test func binarySecretsRoundTripByteForByte() throws {
        let vault = VaultHarness()
        var bytes = (0..<ItemLimits.maxSecretBytes).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }
        bytes[0] = 0
        bytes[1] = 0xff
        #expect(try vault.ctl(["set", "binary", "64k", "--raw"], input: bytes).status == 0)
        #expect(try vault.ctl(["get", "binary", "64k"]).stdout == bytes)
        let json = try JSONSerialization.jsonObject(with: Data(try vault.ctl("get", "binary", "64k", "--json").stdout)) as? [String: Any]
        #expect(json?["secret"] == nil)
        #expect((json?["secret_b64"] as? String).flatMap { Data(base64Encoded: $0) }.map(Array.init) == bytes)
        // One byte over the limit is refused before anything is stored.
        let tooBig = try vault.ctl(["set", "binary", "too-big", "--raw"], input: bytes + [1])
        #expect(tooBig.status == 2 && tooBig.stderr.contains("64 KiB"))
        #expect(try vault.ctl("get", "binary", "too-big").status == 3)
    }

    @Test func everyExitCodeMeansWhatTheReadmeSays() throws {
        let vault = VaultHarness()
        #expect(try vault.ctl("set", "svc", "acct", input: "s").status == 0)
        // 2: usage
        let unknown = try vault.ctl("frobnicate")
        #expect(unknown.status == 2 && unknown.stderr.contains("unknown command"))
        #expect(try vault.ctl("get", "only-service").status == 2)
        #expect(try vault.ctl("get", "svc", "acct", "--no-such-flag").status == 2)
        #expect(try vault.ctl("set", "bad\u{7}name", "acct", input: "s").status == 2)
        // A secret in argv is not accepted: it is a usage error and nothing is stored.
        let inArgv = try vault.ctl("set", "svc", "argv", "hunter2")
        #expect(inArgv.status == 2)
        #expect(try vault.ctl("get", "svc", "argv").status == 3)
        // 3: not found
        let missing = try vault.ctl("get", "svc", "nobody")
        #expect(missing.status == 3 && missing.stderr.contains("no item for service 'svc' account 'nobody'"))
        #expect(try vault.ctl("delete", "svc", "nobody").status == 3)
        // 6: duplicate
        let duplicate = try vault.ctl("add", "svc", "acct", input: "other")
        #expect(duplicate.status == 6 && duplicate.stderr.contains("use 'set'"))
        #expect(try vault.ctl("get", "svc", "acct").stdout == Array("s".utf8))
        // 4: locked
        #expect(try vault.ctl("lock").status == 0)
        let locked = try vault.ctl("get", "svc", "acct")
        #expect(locked.status == 4 && locked.stderr.contains("vaultctl unlock"))
        #expect(try vault.ctl("unlock", input: vault.passphrase + "\n").status == 0)
        // 1: other errors, here a vault file others could read, swapped in behind the daemon's back.
        let copy = vault.vaultFile + ".copy"
        try FileManager.default.copyItem(atPath: vault.vaultFile, toPath: copy)
        chmod(copy, 0o644)
        rename(copy, vault.vaultFile)
        let exposed = try vault.ctl("set", "svc", "new", input: "x")
        #expect(exposed.status == 1 && exposed.stderr.contains("chmod 600"), "\(exposed.stderr)")
        chmod(vault.vaultFile, 0o600)
        // 5: unavailable, with autostart off and no daemon.
        vault.stopDaemons()
        let unavailable = try vault.ctl(["status"], environment: ["VAULT_NO_AUTOSTART": "1"])
        #expect(unavailable.status == 5 && unavailable.stderr.contains("no vaultd answers"))
        // 0
        #expect(try vault.ctl("get", "svc", "acct").status == 0)
    }

    @Test func listShowsNamesAndMetadataButNeverSecrets() throws {
        let vault = VaultHarness()
        try vault.ctl("set", "b-service", "bob", "--label", "Bob's", input: "SECRET-ONE")
        try vault.ctl("set", "a-service", "alice", input: "SECRET-TWO")
        try vault.ctl("set", "b-service", "ann", input: "SECRET-THREE")
        let all = try vault.ctl("list")
        #expect(all.status == 0)
        let rows = all.text.split(separator: "\n").map { $0.split(separator: "\t").prefix(3).joined(separator: "|") }
        #expect(rows == ["a-service|alice|a-service (alice)", "b-service|ann|b-service (ann)", "b-service|bob|Bob's"])
        let filtered = try vault.ctl("list", "b-service", "--json")
        let items = try JSONSerialization.jsonObject(with: Data(filtered.stdout)) as? [[String: Any]]
        #expect(items?.map { $0["account"] as? String } == ["ann", "bob"])
        for output in [all.text, filtered.text] {
            #expect(!output.contains("SECRET"))
        }
    }

    @Test func lockUnlockAndWrongPassphrases() throws {
        // No passphrase source: the daemon starts locked and the first unlock creates the vault.
        let vault = VaultHarness(passphraseFile: false)
        let status = try vault.ctl("status", "--json")
        let body = try JSONSerialization.jsonObject(with: Data(status.stdout)) as? [String: Any]
        #expect(body?["locked"] as? Bool == true)
        #expect(body?["exists"] as? Bool == false)
        #expect(try vault.ctl("get", "a", "b").status == 4)
        #expect(try vault.ctl("unlock", input: "\n").status == 2)
        #expect(try vault.ctl("unlock", input: "first passphrase\n").status == 0)
        #expect(FileManager.default.fileExists(atPath: vault.vaultFile))
        try vault.ctl("set", "a", "b", input: "kept")
        #expect(try vault.ctl("lock").status == 0)
        let wrong = try vault.ctl("unlock", input: "not the passphrase\n")
        #expect(wrong.status == 4 && wrong.stderr.contains("wrong passphrase"))
        #expect(try vault.ctl("get", "a", "b").status == 4)
        #expect(try vault.ctl("unlock", input: "first passphrase\n").status == 0)
        #expect(try vault.ctl("get", "a", "b").stdout == Array("kept".utf8))

        // passwd: two lines on stdin; the old passphrase stops working, items stay.
        #expect(try vault.ctl("passwd", input: "wrong\nnew one\n").status == 4)
        #expect(try vault.ctl("passwd", input: "first passphrase\nsecond passphrase\n").status == 0)
        try vault.ctl("lock")
        #expect(try vault.ctl("unlock", input: "first passphrase\n").status == 4)
        #expect(try vault.ctl("unlock", input: "second passphrase\n").status == 0)
        #expect(try vault.ctl("get", "a", "b").stdout == Array("kept".utf8))
    }

    @Test func idleAutoLockDropsKeys() throws {
        let vault = VaultHarness()
        _ = try vault.startDaemon(["--lock-after", "1s"])
        try vault.ctl("set", "a", "b", input: "x")
        // Locked after a second without use; polled (status is no use of the items), since on a
        // loaded machine the timer may fire late.
        let deadline = Date().addingTimeInterval(30)
        var status: [String: Any]?
        repeat {
            usleep(200_000)
            status = try JSONSerialization.jsonObject(with: Data(try vault.ctl("status", "--json").stdout)) as? [String: Any]
        } while status?["locked"] as? Bool != true && Date() < deadline
        #expect(status?["locked"] as? Bool == true)
        #expect((status?["lock_reason"] as? String)?.contains("without use") == true)
        #expect(try vault.ctl("get", "a", "b").status == 4)
    }

    @Test func secretsNeverReachTheLog() throws {
        let vault = VaultHarness()
        let marker = "LOG-MARKER-SECRET-8c1f"
        try vault.ctl("set", "svc", "acct", input: marker)
        try vault.ctl("get", "svc", "acct")
        try vault.ctl("get", "svc", "acct", "--json")
        try vault.ctl("lock")
        try vault.ctl("unlock", input: vault.passphrase + "\n")
        try vault.ctl("set", "svc", "bad\nname", input: marker)
        let connection = try RawConnection(path: vault.socketPath)
        _ = try connection.request(#"{"id":1,"op":"set","service":"s","account":7,"secret":"\#(marker)"}"#)
        _ = try connection.request(#"{"id":2,"op":"unlock","passphrase":"\#(marker)"}"#)
        connection.close()
        let log = (try? String(contentsOfFile: vault.daemonLog, encoding: .utf8)) ?? ""
        #expect(log.contains("set an item") && !log.contains("'svc'"))
        #expect(!log.contains(marker))
        #expect(!log.contains(vault.passphrase))
    }
}
