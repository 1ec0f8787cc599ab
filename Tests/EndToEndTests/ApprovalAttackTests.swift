import Foundation
import Testing
import VaultCore

/// Attack 1 of issue 30, as a program of the user would make it: register as an approver, ask
/// for a `--confirm` item on a second connection, answer it on a third. Each step is refused:
/// approving needs the approval secret the person typed, and only the approver a request was
/// handed to can answer it.
@Suite struct ApprovalAttackTests {
    let rules = AccessRulesTests()

    @Test func aProgramCannotApproveItsOwnRequest() throws {
        let vault = VaultHarness()
        _ = try vault.startDaemon(["--approval-timeout", "3s"])
        #expect(try vault.ctl(["set", "svc", "guarded", "--confirm"], input: Array("the-guarded-secret".utf8)).status == 0)
        let attacker = try RawConnection(path: vault.socketPath)
        defer { attacker.close() }
        // No approval secret set yet: nobody registers, and setting one needs the vault's passphrase.
        #expect(try attacker.request(#"{"id":1,"op":"approve_next","wait":0}"#)?.errorCode == "denied")
        #expect(try attacker.request(#"{"id":2,"op":"approve_next","wait":0,"secret":"a guess at it"}"#)?.errorCode == "not_found")
        #expect(try attacker.request(#"{"id":3,"op":"set_approval_secret","new_secret":"the attacker's own"}"#)?.errorCode == "passphrase_required")
        #expect(try attacker.request(#"{"id":4,"op":"set_approval_secret","new_secret":"the attacker's own","secret":"not the passphrase"}"#)?.errorCode == "denied")

        // The person's approver, which chooses the secret (with the vault's passphrase) at its first run.
        let transcript = vault.root + "/approver.txt"
        let (driver, input) = try rules.approver(vault, transcript: transcript, answers: [])
        defer {
            try? input.fileHandleForWriting.close()
            driver.waitUntilExit()
        }
        // The attacker asks, and answers "always" on another connection for every id it can think of.
        let reader = Process()
        reader.executableURL = URL(fileURLWithPath: VaultHarness.vaultctl)
        reader.arguments = ["get", "svc", "guarded"]
        reader.environment = vault.environment
        let output = Pipe(), errors = Pipe()
        (reader.standardOutput, reader.standardError) = (output, errors)
        try reader.run()
        let answerer = try RawConnection(path: vault.socketPath)
        defer { answerer.close() }
        #expect(try answerer.request(#"{"id":5,"op":"approve_next","wait":0,"secret":"a guess at it"}"#)?.errorCode == "denied")
        for id in 1...64 {
            #expect(try answerer.request(#"{"id":\#(id),"op":"approve_answer","request":\#(id),"answer":"always"}"#)?.errorCode == "denied")
        }
        reader.waitUntilExit()
        let stderr = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(reader.terminationStatus == 7 && stderr.contains("no answer within 3 s"), "\(stderr)")
        #expect(output.fileHandleForReading.readDataToEndOfFile().isEmpty)
        // No rule was written for it.
        let written = try JSONSerialization.jsonObject(with: Data(try vault.ctl("rules", "svc", "guarded", "--json").stdout)) as? [String: Any]
        #expect(written?["confirm"] as? Bool == true && (written?["allow"] as? [Any])?.isEmpty == true, "\(String(describing: written))")

        // The person saw who asked, and who started it (this test process).
        let shown = try String(contentsOfFile: transcript, encoding: .utf8)
        #expect(shown.contains("get svc (guarded)") && shown.contains("from   pid \(getpid())"), "\(shown)")
        // Every guess is on the record.
        let records = try rules.records(vault)
        #expect(records.filter { $0["op"] as? String == "approve_next" && $0["result"] as? String == "denied" }.count >= 1)
        #expect(records.contains { $0["op"] as? String == "approve_next" && $0["result"] as? String == "ok" })
    }
}
