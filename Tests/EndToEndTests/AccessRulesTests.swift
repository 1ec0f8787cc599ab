import Foundation
import Testing
import VaultCore
import VaultTestSupport
import VaultSystem

/// Per-item access rules, the approver on a terminal and the audit log, with the built binaries:
/// copies of vaultctl at different paths play different programs, python3 runs scripts.
@Suite(.serialized) struct AccessRulesTests {
    /// A copy of vaultctl at `name` in the harness's directory: another program to vaultd.
    func program(_ vault: VaultHarness, _ name: String) throws -> String {
        let path = vault.root + "/" + name
        try ExecutableFile.copy(vault.vaultctlPath, to: path, mode: 0o755)
        return path
    }

    /// `vaultctl approve` on a pseudo-terminal (Tests/Fixtures/approver_pty.py), typing `answers`
    /// one per prompt, registered as an approver when this returns. Closing `input` stops it.
    func approver(_ vault: VaultHarness, transcript: String, answers: [String]) throws -> (Process, input: Pipe) {
        let driver = Process()
        let command = vault.asUser + ["/usr/bin/python3", vault.fixture("approver_pty.py"), vault.vaultctlPath, transcript] + answers
        driver.executableURL = URL(fileURLWithPath: command[0])
        driver.arguments = Array(command.dropFirst())
        var environment = vault.environment
        environment["APPROVAL_SECRET"] = Self.approvalSecret
        environment["VAULT_PASSPHRASE"] = vault.passphrase
        driver.environment = environment
        let input = Pipe(), output = Pipe()
        driver.standardInput = input
        driver.standardOutput = output
        driver.standardError = FileHandle.nullDevice
        try driver.run()
        #expect(output.fileHandleForReading.availableLine() == "READY")
        return (driver, input)
    }

    static let approvalSecret = "a person's approval secret"

    func records(_ vault: VaultHarness) throws -> [[String: Any]] {
        let result = try vault.ctl("audit", "--json")
        #expect(result.status == 0, "\(result.stderr)")
        return result.text.split(separator: "\n").compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
    }

    @Test func anAllowedProgramReadsTheItemAndAnotherIsDeniedBothAudited() throws {
        let vault = VaultHarness()
        try vault.ctl("set", "github.com", "alice", input: "s3cret-allowed")
        let allowed = try program(vault, "allowed-ctl"), other = try program(vault, "other-ctl")
        let allow = try vault.ctl("allow", "--any-caller", "github.com", "alice", allowed)
        #expect(allow.status == 0, "\(allow.stderr)")

        let read = try vault.run([allowed, "get", "github.com", "alice"])
        #expect(read.status == 0 && read.text == "s3cret-allowed", "\(read.stderr)")
        let refused = try vault.run([other, "get", "github.com", "alice"])
        #expect(refused.status == 7 && refused.text.isEmpty, "\(refused.status) \(refused.stderr)")
        #expect(refused.stderr.contains("vaultctl allow 'github.com' 'alice' '\(other)'"), "\(refused.stderr)")
        // The wire code, from this test process (a program no rule names), and for the helpers' path too.
        let connection = try RawConnection(path: vault.socketPath)
        #expect(try connection.request(#"{"id":1,"op":"get","service":"github.com","account":"alice"}"#)?.errorCode == "denied")
        connection.close()
        // Items without rules stay readable by anyone.
        try vault.ctl("set", "other", "item", input: "free")
        #expect(try vault.run([other, "get", "other", "item"]).text == "free")

        let rules = try vault.ctl("rules", "github.com", "alice", "--json")
        let parsed = try JSONSerialization.jsonObject(with: Data(rules.stdout)) as? [String: Any]
        let programs = parsed?["allow"] as? [[String: Any]] ?? []
        #expect(programs.count == 1 && programs.first?["path"] as? String == allowed && (programs.first?["sha256"] as? String)?.count == 64)

        let gets = try records(vault).filter { $0["op"] as? String == "get" && $0["service"] as? String == "github.com" }
        #expect(gets.contains { $0["exe"] as? String == allowed && $0["result"] as? String == "ok" && $0["pid"] is Int && $0["account"] as? String == "alice" })
        #expect(gets.contains { $0["exe"] as? String == other && $0["result"] as? String == "denied" })

        // disallow: the last rule gone, any program reads it again.
        #expect(try vault.ctl("disallow", "github.com", "alice", allowed).status == 0)
        #expect(try vault.run([other, "get", "github.com", "alice"]).status == 0)
        #expect(try vault.ctl("disallow", "github.com", "alice", allowed).status == 2)
    }

    @Test func theAllowedBinaryReplacedAtTheSamePathIsRefusedWithHowToAllowItAgain() throws {
        let vault = VaultHarness()
        try vault.ctl("set", "svc", "acct", input: "pinned")
        let path = try program(vault, "pinned-ctl")
        #expect(try vault.ctl("allow", "--any-caller", "svc", "acct", path).status == 0)
        #expect(try vault.run([path, "get", "svc", "acct"]).text == "pinned")
        // Another file at the same path: still a working vaultctl, with different content.
        try ExecutableFile.copy(VaultHarness.vaultctl, to: path, appending: Array("changed".utf8))
        let refused = try vault.run([path, "get", "svc", "acct"])
        #expect(refused.status == 7, "\(refused.stderr)")
        #expect(refused.stderr.contains("has changed since it was allowed") && refused.stderr.contains("vaultctl allow 'svc' 'acct' '\(path)'"), "\(refused.stderr)")
        #expect(try vault.ctl("allow", "svc", "acct", path).status == 0)
        #expect(try vault.run([path, "get", "svc", "acct"]).text == "pinned")
    }

    @Test func aScriptRunByAnInterpreterIsMatchedByItsScriptPath() throws {
        let vault = VaultHarness()
        try vault.ctl("set", "svc", "script", input: "for-the-script")
        let fixture = PythonFixture.packageRoot + "/Tests/Fixtures/vault_get.py"
        let allowed = vault.root + "/allowed.py", other = vault.root + "/other.py"
        try FileManager.default.copyItem(atPath: fixture, toPath: allowed)
        try FileManager.default.copyItem(atPath: fixture, toPath: other)
        // The script has no #! line: allowing it names its interpreter, which is pinned with it.
        let unnamed = try vault.ctl("allow", "svc", "script", allowed)
        #expect(unnamed.status != 0 && unnamed.stderr.contains("--interpreter"), "\(unnamed.stderr)")
        #expect(try vault.ctl("allow", "--interpreter", "/usr/bin/python3", "svc", "script", allowed).status == 0)
        let arguments = [vault.socketPath, "svc", "script"]
        #expect(try vault.run(["/usr/bin/python3", allowed] + arguments).text == "for-the-script\n")
        #expect(try vault.run(["/usr/bin/python3", "-B", allowed] + arguments).text == "for-the-script\n")
        // Same interpreter, same content, another path: refused; so is code given with -c.
        #expect(try vault.run(["/usr/bin/python3", other] + arguments).text == "error denied\n")
        let inline = try String(contentsOfFile: fixture, encoding: .utf8)
        #expect(try vault.run(["/usr/bin/python3", "-c", inline] + arguments).text == "error denied\n")
        let audited = try records(vault).filter { $0["account"] as? String == "script" && $0["op"] as? String == "get" }
        #expect(audited.contains { $0["script"] as? String == allowed && $0["result"] as? String == "ok" })
    }

    /// `vaultctl approve` on a pseudo-terminal (python's pty module) answering once, for a
    /// period, then denying; then no approver at all.
    @Test func anApproverOnATerminalApprovesOnceThenForAPeriodThenDenies() throws {
        let vault = VaultHarness()
        #expect(try vault.ctl(["set", "svc", "guarded", "--confirm"], input: Array("needs-a-yes".utf8)).status == 0)
        let first = try program(vault, "first-ctl"), second = try program(vault, "second-ctl"), third = try program(vault, "third-ctl")
        // No approver running: refused at once, saying what to do.
        let started = Date()
        let alone = try vault.run([first, "get", "svc", "guarded"])
        #expect(alone.status == 7 && alone.stderr.contains("no approver is running") && alone.stderr.contains("vaultctl approve"), "\(alone.stderr)")
        #expect(Date().timeIntervalSince(started) < 5)

        let transcript = vault.root + "/approver.txt"
        let (driver, input) = try approver(vault, transcript: transcript, answers: ["o", "m 5", "d", "a"])
        defer {
            try? input.fileHandleForWriting.close()
            driver.waitUntilExit()
        }

        let once = try vault.run([first, "get", "svc", "guarded"])
        #expect(once.status == 0 && once.text == "needs-a-yes", "\(once.stderr)")
        let period = try vault.run([first, "get", "svc", "guarded"])
        #expect(period.status == 0 && period.text == "needs-a-yes", "\(period.stderr)")
        // Within the period: no question asked (the next answer, "d", is still unused).
        let again = try vault.run([first, "get", "svc", "guarded"])
        #expect(again.status == 0, "\(again.stderr)")
        let denied = try vault.run([second, "get", "svc", "guarded"])
        #expect(denied.status == 7 && denied.stderr.contains("the approver denied it"), "\(denied.stderr)")

        // "always": a rule now names the second program.
        let always = try vault.run([second, "get", "svc", "guarded"])
        #expect(always.status == 0 && always.text == "needs-a-yes", "\(always.stderr)")
        #expect(try vault.ctl("rules", "svc", "guarded").text.contains(second))

        let shown = (try? String(contentsOfFile: transcript, encoding: .utf8)) ?? ""
        #expect(shown.contains(first) && shown.contains(second) && shown.contains("svc (guarded)") && shown.contains(vault.root) && shown.contains("pid "), "\(shown)")
        #expect(!shown.contains("needs-a-yes"))
        try input.fileHandleForWriting.close()
        driver.waitUntilExit()

        // The approver gone: a third program is refused at once; the rule still lets the second read.
        let gone = try vault.run([third, "get", "svc", "guarded"])
        #expect(gone.status == 7 && gone.stderr.contains("no approver is running"), "\(gone.stderr)")
        #expect(try vault.run([second, "get", "svc", "guarded"]).status == 0)
        // On an item that needs confirmation, allowing a program needs the approver too.
        let selfAllowed = try vault.run([third, "allow", "--any-caller", "svc", "guarded", third])
        #expect(selfAllowed.status == 7 && selfAllowed.stderr.contains("no approver is running"), "\(selfAllowed.stderr)")
        #expect(!(try vault.ctl("rules", "svc", "guarded").text.contains(third)))
        let approvals = try records(vault).filter { $0["op"] as? String == "approve" }
        #expect(approvals.contains { $0["grant"] as? String == "approved once" })
        #expect(approvals.contains { $0["grant"] as? String == "approved for 5 minutes" })
        #expect(approvals.contains { $0["result"] as? String == "denied" && $0["exe"] as? String == second })
    }

    @Test func confirmAllGuardsEveryItemOfTheVault() throws {
        let vault = VaultHarness()
        _ = try vault.startDaemon(["--confirm-all"])
        try vault.ctl("set", "plain", "item", input: "unmarked")
        let refused = try vault.ctl("get", "plain", "item")
        #expect(refused.status == 7 && refused.stderr.contains("no approver is running"), "\(refused.stderr)")
        // A rule still lets its program through without asking.
        let reader = try program(vault, "reader-ctl")
        #expect(try vault.ctl("allow", "--any-caller", "plain", "item", reader).status == 7, "allowing needs the approver too")
    }

    @Test func theGitHelperIsBoundByTheRulesLikeEveryCaller() throws {
        let vault = VaultHarness()
        let helper = GitCredentialHelperTests.helper
        let environment = ["GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": vault.root + "/gitconfig"]
        let credential = "protocol=https\nhost=git.example\nusername=alice\n"
        #expect(try vault.run([helper, "store"], input: Array((credential + "password=git-secret\n").utf8), environment: environment).status == 0)
        let service = "git:https://git.example"
        let other = try program(vault, "other-ctl")
        #expect(try vault.ctl("allow", "--any-caller", service, "alice", other).status == 0)
        let refused = try vault.run([helper, "get"], input: Array(credential.utf8), environment: environment)
        #expect(!refused.text.contains("git-secret") && refused.stderr.contains("access denied"), "\(refused.status) \(refused.text) \(refused.stderr)")
        #expect(try vault.ctl("allow", "--any-caller", service, "alice", helper).status == 0)
        let allowed = try vault.run([helper, "get"], input: Array(credential.utf8), environment: environment)
        #expect(allowed.text.contains("password=git-secret"), "\(allowed.stderr)")
        let audited = try records(vault).filter { $0["service"] as? String == service && $0["op"] as? String == "get" }
        #expect(audited.suffix(2).map { $0["result"] as? String } == ["denied", "ok"], "\(audited)")
    }

    @Test func rulesAndTheAuditLogWorkWithTheSecretService() throws {
        let vault = VaultHarness(passphraseFile: false)
        let keyring = try PrivateKeyring(vault)
        #expect(try vault.ctl("set", "svc-in-keyring-4b2d", "ss", input: "from-keyring").status == 0)
        #expect(try vault.ctl("status", "--json").text.contains(#""backend":"secret-service""#))
        let allowed = try program(vault, "allowed-ctl"), other = try program(vault, "other-ctl")
        #expect(try vault.ctl("allow", "--any-caller", "svc-in-keyring-4b2d", "ss", allowed).status == 0)
        #expect(try vault.run([allowed, "get", "svc-in-keyring-4b2d", "ss"]).text == "from-keyring")
        #expect(try vault.run([other, "get", "svc-in-keyring-4b2d", "ss"]).status == 7)
        // The rules and the audit key are items of the collection, hidden from vault's list;
        // other programs of the user can read them over D-Bus (docs/protocol.md says so).
        #expect(!(try vault.ctl("list").text.contains("vault.access")))
        #expect(try keyring.secretTool(["lookup", "service", "vault.access", "username", "rules"]).text.contains(allowed))
        let audited = try records(vault).filter { $0["account"] as? String == "ss" && $0["op"] as? String == "get" }
        #expect(audited.map { $0["result"] as? String } == ["ok", "denied"])
        let directory = FileSystem.parentDirectory(of: vault.vaultFile)
        // A name long enough that the sealed lines' base64 cannot hold it by chance (a 3-letter
        // one did, now and then).
        #expect(!(try String(contentsOfFile: directory + "/audit.log", encoding: .utf8)).contains("svc-in-keyring-4b2d"))
    }

    @Test func aRequestNobodyAnswersIsDeniedAtTheTimeout() throws {
        let vault = VaultHarness()
        _ = try vault.startDaemon(["--approval-timeout", "1s"])
        #expect(try vault.ctl(["set", "svc", "slow", "--confirm"], input: Array("x".utf8)).status == 0)
        let (driver, input) = try approver(vault, transcript: vault.root + "/approver.txt", answers: [])
        defer {
            try? input.fileHandleForWriting.close()
            driver.waitUntilExit()
        }
        let result = try vault.ctl("get", "svc", "slow")
        #expect(result.status == 7 && result.stderr.contains("no answer within 1 s"), "\(result.stderr)")
    }

    @Test func theAuditLogSurvivesARestartHoldsNoSecretAndItsBytesNameNoItem() throws {
        let vault = VaultHarness()
        let secret = "AUDIT-SECRET-5d1e", service = "audited-service-7f", account = "audited-account-3c"
        try vault.ctl("set", service, account, input: secret)
        #expect(try vault.ctl("get", service, account).text == secret)
        try vault.ctl("delete", service, account)
        vault.stopDaemons()

        let result = try vault.ctl("audit", "--json")
        #expect(result.status == 0, "\(result.stderr)")
        #expect(!result.text.contains(secret))
        let lines = result.text.split(separator: "\n")
        let ops = lines.compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
            .filter { $0["service"] as? String == service }
        #expect(ops.map { $0["op"] as? String } == ["set", "get", "delete"], "\(result.text)")
        for record in ops {
            for field in ["time", "op", "service", "account", "result", "pid", "exe"] { #expect(record[field] != nil, "\(field) in \(record)") }
        }
        #expect(try vault.ctl("audit", "--since", "1h").text.contains(service))
        #expect(try vault.ctl("audit", "--since", "soon").status == 2)

        let directory = FileSystem.parentDirectory(of: vault.vaultFile)
        let onDisk = try String(decoding: Data(contentsOf: URL(fileURLWithPath: directory + "/audit.log")), as: UTF8.self)
        #expect(!onDisk.isEmpty)
        for name in [secret, service, account, "github"] { #expect(!onDisk.contains(name)) }
        #expect(try FileStatus.of(directory + "/audit.log")?.permissions == 0o600)
        // vaultd's own log at the default level names no item either.
        let log = (try? String(contentsOfFile: vault.daemonLog, encoding: .utf8)) ?? ""
        #expect(log.contains("set an item"), "\(log)")
        for name in [secret, service, account] { #expect(!log.contains(name), "\(log)") }
        // Locked, the log cannot be read.
        try vault.ctl("lock")
        #expect(try vault.ctl("audit").status == 4)
    }

    @Test func auditFollowPrintsRecordsAsTheyAreWritten() throws {
        let vault = VaultHarness()
        try vault.ctl("set", "before", "follow", input: "x")
        let (follower, output) = try vault.startCtl(["audit", "--follow", "--json"])
        // However it fails, the lines end: the follower is killed after 40 s at most.
        let pid = follower.processIdentifier
        let watchdog = DispatchWorkItem { kill(pid, SIGKILL) }
        DispatchQueue.global().asyncAfter(deadline: .now() + 40, execute: watchdog)
        defer {
            watchdog.cancel()
            kill(follower.processIdentifier, SIGKILL)
            follower.waitUntilExit()
        }
        #expect(output.fileHandleForReading.availableLine()?.contains(#""service":"before""#) == true)
        try vault.ctl("get", "before", "follow")
        let next = output.fileHandleForReading.availableLine() ?? ""
        #expect(next.contains(#""op":"get""#) && next.contains(#""service":"before""#) && !next.contains(#""secret""#), "\(next)")
    }

    @Test func accessRequestsWithBadInputAreRefusedWithCodes() throws {
        let vault = VaultHarness()
        try vault.ctl("set", "svc", "acct", input: "x")
        let connection = try RawConnection(path: vault.socketPath)
        defer { connection.close() }
        let bad = [
            #"{"id":1,"op":"allow","service":"svc","account":"acct","path":"relative/prog"}"#,
            #"{"id":2,"op":"allow","service":"svc","account":"acct","path":"/no/such/program"}"#,
            #"{"id":3,"op":"allow","service":"svc","account":"acct"}"#,
            #"{"id":4,"op":"allow","service":"svc","account":"acct","path":"/tmp"}"#,
            #"{"id":5,"op":"disallow","service":"svc","account":"acct","path":"/bin/true"}"#,
            #"{"id":6,"op":"rules","service":"","account":"acct"}"#,
            #"{"id":7,"op":"audit","since":"yesterday"}"#,
            #"{"id":8,"op":"approve_answer","request":8,"answer":"maybe"}"#,
            #"{"id":9,"op":"approve_answer","request":9,"answer":"minutes","minutes":0}"#,
            #"{"id":11,"op":"get","service":"vault.access","account":"rules"}"#,
            #"{"id":12,"op":"set","service":"vault.access","account":"audit-key","secret":"mine"}"#,
            #"{"id":13,"op":"set","service":"svc","account":"k","secret":"x","kind":"access"}"#,
            #"{"id":14,"op":"approve_next","wait":"long"}"#,
            #"{"id":15,"op":"set","service":"svc","account":"k","secret":"x","confirm":"yes"}"#,
        ]
        for request in bad {
            let response = try connection.request(request)
            #expect(response?.errorCode == "bad_request", "\(request) -> \(String(describing: response))")
        }
        // Well-formed, but from a connection that is no approver.
        #expect(try connection.request(#"{"id":10,"op":"approve_answer","request":12345,"answer":"once"}"#)?.errorCode == "denied")
        #expect(try connection.request(#"{"id":16,"op":"approve_next","wait":0}"#)?.errorCode == "denied")
        #expect(try connection.request(#"{"id":20,"op":"status"}"#)?.ok == true)
        // Nothing of vault's own shows up in a listing.
        #expect(!(try vault.ctl("list").text.contains("vault.access")))
        // approve needs a terminal.
        let approve = try vault.ctl("approve")
        #expect(approve.status == 2 && approve.stderr.contains("terminal"), "\(approve.stderr)")
    }
}

extension FileHandle {
    /// The next line this pipe gives (without its newline), read byte by byte; nil at its end.
    func availableLine() -> String? {
        var line: [UInt8] = []
        while true {
            let byte = readData(ofLength: 1)
            if byte.isEmpty { return line.isEmpty ? nil : String(decoding: line, as: UTF8.self) }
            if byte[0] == 0x0A { return String(decoding: line, as: UTF8.self) }
            line.append(byte[0])
        }
    }
}
